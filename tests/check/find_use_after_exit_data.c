// Use after exit data: the device address of A, taken while A was mapped,
// reaches a kernel after `target exit data` removed the mapping.  The
// launch is reported with the variable and both constructs; the kernel
// then faults on the freed block (held back from reuse in check mode).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: use after exit data: kernel __omp_offloading_
// EXPECT-STDERR: _main_l25 at find_use_after_exit_data.c:25 gets d = 0x
// EXPECT-STDERR: which points into the device copy of a[0:n] (declared at find_use_after_exit_data.c:16), removed by the construct at find_use_after_exit_data.c:24
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 100;
  double *a = malloc(n * sizeof *a), *d = NULL, x = 0;
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target enter data map(to: a[0:n])
#pragma omp target data use_device_ptr(a)
  d = a;
  printf("device copy taken\n");
  fflush(stdout);
#pragma omp target exit data map(delete: a[0:n])
#pragma omp target is_device_ptr(d) map(from: x)
  x = d[5];
  printf("x = %g\n", x);
  free(a);
  return 0;
}
