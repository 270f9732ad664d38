// A struct with a mapper, present since an enter data, mapped again with
// to: nothing may be copied (its count is not zero), so a host-only change
// stays on the host.  LLVM 14 to 19 never count the mapper's first
// component and take its count of 1 for "created by this construct", so
// they copy the struct again (LLVM 22 does not); ompemu counts it as the
// list item the mapper was called for (docs/abi-clang14.md 13.9).
// LLVM14-FAILS: a present struct with a mapper is copied again
// SKIP-MODE-llvmrt: LLVM 14's runtime copies the present struct again (mapper path)
#include "check.h"

typedef struct {
  int n;
  int k;
  double *a;
} rec_t;
#pragma omp declare mapper(rec_t r) map(r, r.a[0:r.n])

int main(void) {
  rec_t r = {4, 1, calloc(4, sizeof(double))};
#pragma omp target enter data map(to: r)
  r.k = 2; /* host only */
#pragma omp target enter data map(to: r)
  int seen = -1;
#pragma omp target map(from: seen)
  seen = r.k;
  CHECK(seen == 1, "enter data of a present struct copied it: device k=%d",
        seen);
  r.k = 5; /* host only */
#pragma omp target map(from: seen)
  seen = r.k + (int)r.a[0];
  CHECK(seen == 1, "a region's map of a present struct copied it: device "
        "k=%d", seen);
#pragma omp target exit data map(release: r)
#pragma omp target exit data map(release: r)
  free(r.a);
  return tc_done();
}
