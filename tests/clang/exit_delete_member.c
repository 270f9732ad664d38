// exit data map(delete:) of members of a struct mapped as a whole, whose
// reference count is above one: a structure element shares its
// structure's reference count (OpenMP 5.2, 5.8.3), so the delete sets it
// to zero and removes the struct; a later exit data map(from:) finds
// nothing to copy back.  LLVM 16 and later do this; LLVM 14's runtime
// resets the count only for list items that are no member.
// SKIP-MODE-llvmrt: LLVM 14's runtime drops one reference for a member's delete and keeps the struct
// LLVM14-FAILS: its runtime drops one reference for a member's delete and keeps the struct
#include "check.h"
#include <omp.h>

struct S {
  int x, y, z;
};

int main(void) {
  int dev = omp_get_default_device();
  struct S v = {1, 2, 3};
#pragma omp target enter data map(to: v)
#pragma omp target enter data map(to: v)
#pragma omp target map(alloc: v)
  v.z = 42;
#pragma omp target exit data map(delete: v.x, v.y)
  CHECK(!omp_target_is_present(&v, dev), "v still mapped after the delete of v.x and v.y");
#pragma omp target exit data map(from: v)
  CHECK(v.z == 3, "v.z = %d: a removed mapping was copied back", v.z);
  return tc_done();
}
