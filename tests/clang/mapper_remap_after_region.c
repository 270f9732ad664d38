// A struct mapped through a declare mapper by one region is unmapped when
// the region ends (its reference count drops to 0), so a later region's
// map(to:) creates it again and copies the host's value.  LLVM 14 to 22
// leave the mapper's first component mapped at a count of 1 and copy it
// again only because that count is 1; a struct present from an enter data
// is not copied again (mapper_present_no_copy.c).
// LLVM14-FAILS: the struct stays mapped after the first region (count 1)
// SKIP-MODE-llvmrt: LLVM 14's runtime leaves the struct mapped after the first region
#include "check.h"

#include <omp.h>

typedef struct {
  int a[4];
  int b[4];
} pair_t;
#pragma omp declare mapper(pair_t s) map(s)

typedef struct {
  int n;
  double dt;
  double *x;
} state_t;
#pragma omp declare mapper(state_t s) map(s, s.x[0:s.n])

int main(void) {
  int dev = omp_get_default_device();
  pair_t s = {{1, 1, 1, 1}, {2, 2, 2, 2}};
  int seen = -1;
#pragma omp target map(tofrom: s)
  s.a[0] = 10;
  CHECK(s.a[0] == 10, "first region's result not copied back: %d", s.a[0]);
  CHECK(!omp_target_is_present(&s, dev), "struct still mapped after the "
        "region that mapped it");
  s.a[0] = 5;
#pragma omp target map(to: s) map(from: seen)
  seen = s.a[0];
  CHECK(seen == 5, "second region sees a[0]=%d, want 5", seen);

  /* A scalar member changed on the host between regions reaches each. */
  state_t st = {4, 0, calloc(4, sizeof(double))};
  for (int step = 1; step <= 3; step++) {
    st.dt = step;
#pragma omp target map(tofrom: st)
    for (int i = 0; i < st.n; i++)
      st.x[i] += st.dt;
  }
  CHECK(st.x[0] == 6, "x[0]=%g, want 1+2+3", st.x[0]);
  CHECK(!omp_target_is_present(st.x, dev), "x still mapped");
  free(st.x);
  return tc_done();
}
