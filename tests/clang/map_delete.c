// exit data map(delete:) removes a mapping whatever its reference count,
// and copies nothing back.
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device();
  int a[10];
  for (int i = 0; i < 10; i++) a[i] = i;
#pragma omp target enter data map(to: a)
#pragma omp target enter data map(to: a)
#pragma omp target enter data map(alloc: a)
#pragma omp target
  for (int i = 0; i < 10; i++) a[i] = 99;
  CHECK(omp_target_is_present(a, dev), "a not present before delete");
#pragma omp target exit data map(delete: a)
  CHECK(!omp_target_is_present(a, dev), "a still present after delete");
  for (int i = 0; i < 10; i++) CHECK(a[i] == i, "a[%d] = %d copied back by delete", i, a[i]);
  /* mapping it again gives fresh device data from the host */
  int r = -1;
#pragma omp target map(to: a) map(from: r)
  r = a[4];
  CHECK(r == 4, "re-mapped a[4] = %d", r);
  return tc_done();
}
