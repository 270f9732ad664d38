// omp_get_num_devices, omp_get_initial_device, omp_is_initial_device (0
// inside a target region on a device, 1 on the host), device() clauses
// and if(target: 0) host fallback.
#include "check.h"
#include <omp.h>

int main(void) {
  int n = omp_get_num_devices();
  int initial = omp_get_initial_device();
  CHECK(n >= 1, "omp_get_num_devices() = %d", n);
  CHECK(initial == n, "omp_get_initial_device() = %d, want %d (LLVM 14: the device count)", initial, n);
  CHECK(omp_is_initial_device() == 1, "host is not the initial device");
  for (int d = 0; d < n; d++) {
    int on_host = -1;
#pragma omp target device(d) map(from: on_host)
    on_host = omp_is_initial_device();
    CHECK(on_host == 0, "omp_is_initial_device() on device %d = %d", d, on_host);
  }
  int on_host = -1;
#pragma omp target device(initial) map(from: on_host)
  on_host = omp_is_initial_device();
  CHECK(on_host == 1, "target device(initial) ran on a device");
  on_host = -1;
#pragma omp target if(target: 0) map(from: on_host)
  on_host = omp_is_initial_device();
  CHECK(on_host == 1, "if(target: 0) did not run on the host");
  int teams_on_host = -1;
#pragma omp target teams num_teams(2) map(tofrom: teams_on_host)
  {
    if (omp_get_team_num() == 0) teams_on_host = omp_is_initial_device();
  }
  CHECK(teams_on_host == 0, "teams region on the host");
  printf("devices %d initial %d\n", n, initial);
  return tc_done();
}
