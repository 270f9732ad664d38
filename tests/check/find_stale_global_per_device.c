// Two devices, each given its own value of a declare-target global
// through the host's copy (`target update to(scale) device(d)` in turn),
// each kernel reading its own device's value: no finding, though the
// host's copy differs from device 0's when device 0's kernel runs (it is
// what device 1 was given).  And the stale case beside it: the host then
// changes the global without sending it anywhere, and device 0's kernel
// reads the old value: a finding.
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_NUM_DEVICES=2
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: stale declare target variable scale: its host copy changed since the device last got it
// EXPECT-STDERR: _main_l35 at find_stale_global_per_device.c:35 starts with the old device copy
// EXPECT-STDERR: ompemu: check: 1 finding
// EXPECT-STDOUT: devices 2: 10 20, then 10
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
int scale = 1;
#pragma omp end declare target

int main(void) {
  int n = omp_get_num_devices(), got[2] = {0, 0}, later = 0;
  for (int d = 0; d < n && d < 2; d++) {
    scale = 10 * (d + 1);
#pragma omp target update to(scale) device(d)
  }
  for (int d = 0; d < n && d < 2; d++) {
    int r = 0;
#pragma omp target map(from: r) device(d)
    r = scale;
    got[d] = r;
  }
  scale = 30; /* sent nowhere */
#pragma omp target map(from: later) device(0)
  later = scale;
  printf("devices %d: %d %d, then %d\n", n, got[0], got[1], later);
  return 0;
}
