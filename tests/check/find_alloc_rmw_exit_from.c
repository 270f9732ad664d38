// enter data map(alloc:) of an array the kernel then adds to (`c[i] +=`)
// without its initial values, and exit data map(from:) that brings the
// sums of garbage back: the uninitialized read is reported when its
// results reach the host (compare clean_alloc_rmw_scratch.c, where they
// never do).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel __omp_offloading_
// EXPECT-STDERR: read c[0:N] (declared at find_alloc_rmw_exit_from.c:17) before anything wrote it; it was mapped with map(alloc) at find_alloc_rmw_exit_from.c:20
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

enum { N = 512 };

int main(void) {
  int c[N];
  for (int i = 0; i < N; i++)
    c[i] = 0; /* meant for the device: map(to:) was needed */
#pragma omp target enter data map(alloc: c[0:N])
#pragma omp target
  for (int i = 0; i < N; i++)
    c[i] += i + 1;
#pragma omp target exit data map(from: c[0:N])
  printf("c[3] = %d\n", c[3]);
  return 0;
}
