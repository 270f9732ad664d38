// Non-contiguous target update with a step on the outer dimension and a
// lower bound other than 0: m[1:2:3] is rows 1 and 4.  The compiler's
// descriptors fold the step into the stride ({1, 2, 48} for int m[8][4])
// and never give the row size, so a runtime that takes the stride for the
// row size (LLVM 14 to 22) moves rows 3 and 6.  With -g ompemu takes the
// row size from the array's declaration.
// CFLAGS: -g
// LLVM14-FAILS: an outer step with a non-zero lower bound moves the wrong rows
// SKIP-MODE-llvmrt: LLVM 14's runtime takes the outer stride for the row size
#include "check.h"

int main(void) {
  int m[8][4];
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++)
      m[i][j] = 1;
#pragma omp target enter data map(to: m)
#pragma omp target
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++)
      m[i][j] = 0;
#pragma omp target update from(m[1:2:3][0:2:2])
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++) {
      int moved = (i == 1 || i == 4) && (j == 0 || j == 2);
      CHECK(m[i][j] == (moved ? 0 : 1), "m[%d][%d] = %d", i, j, m[i][j]);
    }
#pragma omp target exit data map(delete: m)
  return tc_done();
}
