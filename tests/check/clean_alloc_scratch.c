// Data a data region maps with `to` and the kernel reaches only through an
// explicit map(alloc:) is device storage the program never asked back:
// the kernel's writes go with the data region's end (the OpenMP V&V test
// test_target_data_pointer_swap checks exactly that).  No finding.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: a[10] = 10, b[10] = 0
#include <stdio.h>
#include <stdlib.h>

enum { N = 1024 };

int main(void) {
  int *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 0;
  }
#pragma omp target data map(tofrom: a[0:N]) map(to: b[0:N])
  {
#pragma omp target map(alloc: a[0:N], b[0:N])
    for (int i = 0; i < N; i++)
      b[i] = a[i] * 2;
  }
  printf("a[10] = %d, b[10] = %d\n", a[10], b[10]);
  free(a);
  free(b);
  return 0;
}
