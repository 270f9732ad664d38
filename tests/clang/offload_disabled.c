// OMP_TARGET_OFFLOAD=disabled: no devices, every construct runs on the
// host (the host fallback), data constructs are no-ops.
// RUN-ENV: OMP_TARGET_OFFLOAD=disabled
#include "check.h"
#include <omp.h>

int main(void) {
  CHECK(omp_get_num_devices() == 0, "omp_get_num_devices() = %d", omp_get_num_devices());
  int a[8] = {0}, on_host = -1;
#pragma omp target enter data map(to: a)
  /* device 0 is now the initial device (LLVM 14: initial == device count),
     where everything is present */
  CHECK(omp_get_initial_device() == 0, "omp_get_initial_device() = %d", omp_get_initial_device());
  CHECK(omp_target_is_present(a, omp_get_initial_device()) == 1, "not present on the host");
#pragma omp target map(tofrom: a) map(from: on_host)
  {
    on_host = omp_is_initial_device();
    a[1] = 5;
  }
  CHECK(on_host == 1, "target region ran on a device");
  CHECK(a[1] == 5, "a[1] = %d", a[1]);
  long sum = 0;
#pragma omp target teams distribute parallel for reduction(+: sum)
  for (int i = 0; i < 100; i++) sum += i;
  CHECK(sum == 4950, "sum %ld", sum);
#pragma omp target exit data map(delete: a)
  return tc_done();
}
