// OpenMP 6.0's device unique ids and OpenMP 5.1's omp_target_is_accessible,
// which LLVM's runtime exports from 22 on.
// MIN-CLANG: 22
#include "check.h"
#include <omp.h>

int main(void) {
  int n = omp_get_num_devices(), host = omp_get_initial_device();
  for (int i = 0; i < n; i++) {
    const char *u = omp_get_uid_from_device(i);
    CHECK(u != NULL, "no uid for device %d", i);
    if (u)
      CHECK(omp_get_device_from_uid(u) == i, "uid %s of device %d gives %d", u, i,
            omp_get_device_from_uid(u));
  }
  const char *hu = omp_get_uid_from_device(host);
  CHECK(hu != NULL && omp_get_device_from_uid(hu) == host, "host uid %s",
        hu ? hu : "(null)");
  CHECK(omp_get_device_from_uid("no such device") == omp_invalid_device,
        "an unknown uid gives %d", omp_get_device_from_uid("no such device"));
  int x[4];
  CHECK(omp_target_is_accessible(x, sizeof x, host), "host memory from the host");
  return tc_done();
}
