// A struct with a default mapper (struct plus pointee) mapped by enter
// data, updated, then used implicitly in a target region while present.
// The region must not copy the present struct again: LLVM 14's mapper path
// re-copies the parent (MEMBER_OF | TO) entry, overwriting the attached
// device pointer with the host pointer, so the kernel writes host memory
// and `update from` then brings back stale device data.
// LLVM14-FAILS: mapper re-copies a present struct over its attached pointer
// SKIP-MODE-llvmrt: LLVM 14's runtime re-copies the present struct (mapper path)
#include "check.h"

typedef struct { int len; double *buf; } vec_t;
#pragma omp declare mapper(vec_t v) map(v, v.buf[0:v.len])

int main(void) {
  vec_t v = {8, malloc(8 * sizeof(double))};
  double *host_buf = v.buf;
#pragma omp target enter data map(to: v)
  for (int i = 0; i < 8; i++) v.buf[i] = -i;
#pragma omp target update to(v.buf[0:v.len])
#pragma omp target
  for (int i = 0; i < v.len; i++) v.buf[i] *= 3;
#pragma omp target update from(v)
  CHECK(v.buf[2] == -6 && v.buf[7] == -21, "after update from: %g %g", v.buf[2], v.buf[7]);
#pragma omp target exit data map(release: v)
  CHECK(v.buf == host_buf, "host pointer overwritten");
  free(host_buf);
  return tc_done();
}

