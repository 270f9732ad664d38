// map(alloc:) read before write: A is entered with alloc: (it should be
// to:), and the kernel sums it: it reads device memory nothing wrote.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel __omp_offloading_
// EXPECT-STDERR: _main_l19 at find_alloc_read.c:19 read a[0:n] (declared at find_alloc_read.c:13) before anything wrote it; it was mapped with map(alloc) at find_alloc_read.c:17, which gives the device uninitialized memory
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  int *a = malloc(n * sizeof *a);
  long sum = 0;
  for (int i = 0; i < n; i++)
    a[i] = 1;
#pragma omp target enter data map(alloc: a[0:n])
  /* target update to(a[0:n]) missing */
#pragma omp target map(tofrom: sum)
  for (int i = 0; i < n; i++)
    sum += a[i];
#pragma omp target exit data map(delete: a[0:n])
  printf("sum = %ld\n", sum);
  free(a);
  return 0;
}
