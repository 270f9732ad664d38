// map(ompx_hold, ...) (clang extension): the hold reference count keeps the
// data mapped even when an exit data delete resets the dynamic count.
// CFLAGS: -fopenmp-extensions
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device();
  int a[4] = {1, 2, 3, 4};
#pragma omp target data map(ompx_hold, tofrom: a)
  {
#pragma omp target enter data map(to: a)
#pragma omp target exit data map(delete: a)
    CHECK(omp_target_is_present(a, dev), "hold mapping removed by delete");
#pragma omp target
    a[2] = 30;
  }
  CHECK(!omp_target_is_present(a, dev), "still present after hold region");
  CHECK(a[2] == 30 && a[0] == 1, "a = %d %d %d %d", a[0], a[1], a[2], a[3]);
  return tc_done();
}
