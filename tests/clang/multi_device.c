// Two devices: device(n) selects the device, each device has its own copy
// of declare target globals and its own mappings; omp_target_memcpy
// copies between devices.
// RUN-ENV: OMPEMU_NUM_DEVICES=2
#include "check.h"
#include <omp.h>

#pragma omp declare target
int g = 1;
#pragma omp end declare target

int main(void) {
  int n = omp_get_num_devices();
  CHECK(n >= 2, "omp_get_num_devices() = %d, want at least 2", n);
  if (n < 2) return tc_done();
  for (int d = 0; d < 2; d++) {
#pragma omp target device(d)
    g = g + 10 * (d + 1);
  }
  int r0 = 0, r1 = 0;
#pragma omp target device(0) map(from: r0)
  r0 = g;
#pragma omp target device(1) map(from: r1)
  r1 = g;
  CHECK(r0 == 11 && r1 == 21, "per-device g: dev0 %d (want 11), dev1 %d (want 21)", r0, r1);
  CHECK(g == 1, "host g = %d", g);

  int a[16];
  for (int i = 0; i < 16; i++) a[i] = i;
#pragma omp target enter data map(to: a) device(1)
  CHECK(omp_target_is_present(a, 1), "a not present on device 1");
  CHECK(!omp_target_is_present(a, 0), "a present on device 0");
#pragma omp target device(1)
  for (int i = 0; i < 16; i++) a[i] *= 3;
  int *d0 = omp_target_alloc(sizeof a, 0);
  void *d1 = NULL;
#pragma omp target data use_device_addr(a) device(1)
  { d1 = a; }
  CHECK(omp_target_memcpy(d0, d1, sizeof a, 0, 0, 0, 1) == 0, "dev1 -> dev0 memcpy");
  int sum = 0;
#pragma omp target device(0) is_device_ptr(d0) map(tofrom: sum)
  for (int i = 0; i < 16; i++) sum += d0[i];
  CHECK(sum == 3 * 120, "sum on device 0 of data copied from device 1: %d", sum);
#pragma omp target exit data map(from: a) device(1)
  CHECK(a[15] == 45, "a[15] = %d", a[15]);
  omp_target_free(d0, 0);
  return tc_done();
}
