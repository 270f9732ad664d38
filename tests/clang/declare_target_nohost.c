// Device-only code: a function with a begin/end declare variant for
// kind(nohost) is compiled into the device image only, and the target
// region calls that version on the device (the host keeps its own);
// declare target device_type(any) functions and a declare target global.
#include "check.h"

int scale = 3;
#pragma omp declare target to(scale)

int where(void) { return 1; }
#pragma omp declare target to(where)
#pragma omp begin declare variant match(device = {kind(nohost)})
int where(void) { return 2; }
#pragma omp end declare variant

int both(int x) { return x * scale + 100 * where(); }
#pragma omp declare target to(both) device_type(any)

int main(void) {
  int r[8];
#pragma omp target map(from: r)
  for (int i = 0; i < 8; i++) r[i] = both(i);
  for (int i = 0; i < 8; i++) CHECK(r[i] == 3 * i + 200, "r[%d] = %d (want the nohost variant)", i, r[i]);
  CHECK(both(1) == 103, "host both(1) = %d", both(1));
  scale = 5;
#pragma omp target update to(scale)
  int r2 = 0;
#pragma omp target map(from: r2)
  r2 = both(2);
  CHECK(r2 == 210, "both(2) after update = %d", r2);
  return tc_done();
}
