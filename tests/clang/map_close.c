// map(close, ...) behaves like an ordinary map without unified shared
// memory: data is copied to and from the device.
#include "check.h"

int main(void) {
  double v[64];
  int n = 64;
  for (int i = 0; i < n; i++) v[i] = i;
#pragma omp target map(close, tofrom: v) map(close, to: n)
  for (int i = 0; i < n; i++) v[i] = v[i] * 2 + 1;
  for (int i = 0; i < n; i++)
    CHECK(v[i] == i * 2 + 1, "v[%d] = %g", i, v[i]);
  return tc_done();
}
