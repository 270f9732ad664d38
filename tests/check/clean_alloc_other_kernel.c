// A block mapped alloc that one kernel fills, after another kernel that
// never gets it: no finding.  Clang 22's kernels take a first argument of
// all ones (the dynamic-memory pointer); the block lookup used to wrap
// round for it (address + size) and take it for the highest block that
// spans buckets, so the other kernel was said to read c uninitialized
// (a block of 8 KiB or more; the clang-22.sh run of this program).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: x = 2, c[2047] = 3
#include <stdio.h>

enum { N = 2048 };

int main(void) {
  static double c[N];
  int x = 1;
#pragma omp target enter data map(alloc: c)
#pragma omp target map(tofrom: x)
  x = x + 1;
#pragma omp target map(alloc: c)
  for (int i = 0; i < N; i++)
    c[i] = 3;
#pragma omp target exit data map(from: c)
  printf("x = %d, c[%d] = %g\n", x, N - 1, c[N - 1]);
  return 0;
}
