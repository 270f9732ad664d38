// use_device_addr of a class's reference member together with a map of an
// element it reaches: data begin hands the device address back in the
// entry's base (RETURN_PARAM), so data end sees a device address where the
// member's pointer was; the list is still well formed (clang 22 lists the
// element as a PTR_AND_OBJ member of the reference).
// SKIP-MODE-llvmrt: LLVM 14's runtime has no omp_get_mapped_ptr
#include "check.h"
#include "newer_api.h" /* omp_get_mapped_ptr: not in LLVM 14 */

int target_value;
int *table[4][4];

struct Holder {
  int *(&ref)[4][4] = table;
  int run() {
    ref[0][2] = &target_value;
    int ok = 0;
#pragma omp target enter data map(to: ref)
    void *dev = omp_get_mapped_ptr(&ref, omp_get_default_device());
#pragma omp target data map(ref[0][2]) use_device_addr(ref)
    ok += dev != nullptr && dev == (void *)&ref;
#pragma omp target data map(ref[1][3]) use_device_addr(ref)
    ok += dev == (void *)&ref;
#pragma omp target exit data map(release: ref)
    return ok;
  }
};

/* A reference to a scalar as a member: clang 22 lists the scalar as a
 * PTR_AND_OBJ member of the reference's storage, based at the struct. */
int scalar = 5;
struct ScalarRef {
  long before = 1;
  int &r = scalar;
  int run() {
    int ok = 0;
#pragma omp target enter data map(to: r)
    void *dev = omp_get_mapped_ptr(&r, omp_get_default_device());
#pragma omp target data use_device_addr(r)
    ok += dev != nullptr && dev == (void *)&r;
    ok += dev != nullptr;
#pragma omp target exit data map(release: r)
    return ok;
  }
};

int main() {
  Holder h;
  int ok = h.run();
  CHECK(ok == 2, "use_device_addr(ref) gave the mapped address %d of 2 times",
        ok);
  ScalarRef sr;
  ok = sr.run();
  CHECK(ok == 2, "reference member: %d of 2 checks held", ok);
  return tc_done();
}
