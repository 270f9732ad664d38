// Missing map(to:): the kernel reads A, which is mapped from: (it should
// be to: or tofrom:), so nothing copies it in and the kernel reads
// uninitialized device memory: A's pages are watched while the kernel
// runs, and its first read is reported (one finding: the copy back of the
// same poison is not reported again).  The finding names A, the map type
// and the line.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel __omp_offloading_
// EXPECT-STDERR: _main_l21 at find_missing_to.c:21 read a (declared at find_missing_to.c:18) before anything wrote it; it was mapped with map(from) at find_missing_to.c:21, which gives the device uninitialized memory: map(tofrom:) copies the host's values in
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

enum { N = 1000 };

int main(void) {
  double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target map(from: a, b)
  for (int i = 0; i < N; i++)
    b[i] = a[i] + 1;
  printf("b[1] = %g\n", b[1]);
  return 0;
}
