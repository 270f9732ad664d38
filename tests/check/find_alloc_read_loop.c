// One bug in a loop is one finding: each of eight rows of W is mapped with
// alloc: and accumulated into (+=) by its own nowait region, so every
// region reads device memory nothing wrote, each time in a new device
// block.  The eight messages differ only in the block's address: one
// finding is printed, and the rest are counted as repeats.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l22 at find_alloc_read_loop.c:22 read w[r][0:N] (declared at find_alloc_read_loop.c:16) before anything wrote it; it was mapped with map(alloc) at find_alloc_read_loop.c:22
// EXPECT-STDERR: ompemu: check: 1 finding (and 7 repeats); exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

enum { R = 8, N = 64 };

int main(void) {
  int w[R][N];
  for (int r = 0; r < R; r++)
    for (int j = 0; j < N; j++)
      w[r][j] = 0;
  for (int r = 0; r < R; r++) {
    /* map(tofrom:) wanted: alloc gives the device uninitialized memory */
#pragma omp target map(alloc: w[r][0:N]) nowait
    for (int j = 0; j < N; j++)
      w[r][j] += j;
  }
#pragma omp taskwait
  printf("w[1][2] = %d\n", w[1][2]);
  return 0;
}
