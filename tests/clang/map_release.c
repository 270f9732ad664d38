// exit data map(release:) decrements the reference count; the data stays
// until the count reaches zero, and `from` copies only on the last one.
// In check mode, the exit data from at reference count 2, which copies
// nothing while the device changed the data, is reported (on purpose here).
// CHECK-FINDING: results not copied back: map(from) of host
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device();
  int a[20];
  for (int i = 0; i < 20; i++) a[i] = 1;
#pragma omp target enter data map(to: a)
#pragma omp target enter data map(to: a)
#pragma omp target enter data map(to: a)
#pragma omp target
  for (int i = 0; i < 20; i++) a[i] = 2;
#pragma omp target exit data map(release: a)
  CHECK(omp_target_is_present(a, dev), "gone after 1st release (count 3)");
#pragma omp target exit data map(from: a)
  CHECK(omp_target_is_present(a, dev), "gone after from at count 2");
  CHECK(a[0] == 1, "from copied before the last reference: a[0] = %d", a[0]);
#pragma omp target exit data map(from: a)
  CHECK(!omp_target_is_present(a, dev), "still present after last from");
  CHECK(a[0] == 2 && a[19] == 2, "last from did not copy: %d %d", a[0], a[19]);
  return tc_done();
}
