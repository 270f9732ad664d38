// declare target globals: the device copy is initialised from the image,
// is present from the start, changes on the device are seen after update
// from, host changes reach it after update to.  A declare target function
// uses them.
// In check mode, g changed on the host only is a stale global (on purpose
// here).
// CHECK-FINDING: stale declare target variable g: its host copy changed
#include "check.h"
#include <omp.h>

#pragma omp declare target
int g = 5;
double tab[4] = {1.0, 2.0, 3.0, 4.0};
static int counter;
int bump(int by) { counter += by; return counter + g; }
#pragma omp end declare target

int main(void) {
  int dev = omp_get_default_device();
  int r = 0, r2 = 0;
  g = 6; /* host only until update to */
#pragma omp target map(from: r)
  { r = g; g = 50; tab[1] = 20; }
  /* globals are mapped for good once the device has loaded the image */
  CHECK(omp_target_is_present(&g, dev), "&g not present");
  CHECK(omp_target_is_present(tab, dev), "tab not present");
  CHECK(omp_target_is_present(&tab[3], dev), "&tab[3] not present");
  CHECK(r == 5, "device g started at %d, want 5 (image value)", r);
  CHECK(g == 6 && tab[1] == 2.0, "host copies changed without update: g=%d", g);
#pragma omp target update from(g, tab)
  CHECK(g == 50 && tab[1] == 20.0 && tab[3] == 4.0, "after update from: g=%d tab[1]=%g", g, tab[1]);
  g = 7;
#pragma omp target update to(g)
#pragma omp target map(from: r, r2)
  { r = bump(2); r2 = bump(3); }
  CHECK(r == 9 && r2 == 12, "bump gave %d %d", r, r2);
  CHECK(counter == 0, "host counter changed: %d", counter);
  return tc_done();
}
