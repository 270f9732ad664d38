// Non-contiguous target update of a 2-D array: exactly the selected
// elements move (LLVM 14's runtime moves the wrong ones, docs/abi-clang14-runtime.md §7.4).
// LLVM14-FAILS: non-contiguous update moves the wrong elements
// SKIP-MODE-llvmrt: LLVM 14's runtime walks non-contiguous descriptors wrongly (§7.4)
#include "check.h"

int main(void) {
  double a[4][8];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) a[i][j] = i * 100 + j;
#pragma omp target data map(alloc: a)
  {
#pragma omp target
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 8; j++) a[i][j] = -1;
    /* rows 0..1, columns 1,3,5 go to the device */
#pragma omp target update to(a[0:2][1:3:2])
    /* device: rows 1..2 := row*1000 + col where the device value is set */
#pragma omp target
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 8; j++)
        if (a[i][j] == -1) a[i][j] = -(i * 1000 + j);
    /* rows 1 and 2, all of columns 0..3, come back */
#pragma omp target update from(a[1:2][0:4])
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) {
      double want;
      if (i >= 1 && i <= 2 && j < 4) {
        /* came back from the device */
        int sent = (i == 1) && (j == 1 || j == 3 || j == 5);
        want = sent ? i * 100 + j : -(i * 1000 + j);
      } else {
        want = i * 100 + j; /* host value untouched */
      }
      CHECK(a[i][j] == want, "a[%d][%d] = %g, want %g", i, j, a[i][j], want);
    }
  return tc_done();
}
