// firstprivate scalars, arrays and structs: the device gets a copy of the
// host value and its changes do not come back.
#include "check.h"

struct pt { int x, y; };

int main(void) {
  int s = 7;
  double d = 2.5;
  int arr[5] = {1, 2, 3, 4, 5};
  struct pt p = {3, 4};
  int out[4];
#pragma omp target firstprivate(s, d, arr, p) map(from: out)
  {
    out[0] = s;
    out[1] = (int)(d * 2);
    out[2] = arr[0] + arr[4];
    out[3] = p.x * p.y;
    s = 100; d = 0; arr[0] = 100; p.x = 100;
  }
  CHECK(out[0] == 7 && out[1] == 5 && out[2] == 6 && out[3] == 12,
        "out = %d %d %d %d", out[0], out[1], out[2], out[3]);
  CHECK(s == 7 && d == 2.5 && arr[0] == 1 && p.x == 3, "host copies changed");
  /* firstprivate in a combined construct, used in every iteration */
  int base = 1000, r[64];
#pragma omp target teams distribute parallel for firstprivate(base) map(from: r)
  for (int i = 0; i < 64; i++) r[i] = base + i;
  for (int i = 0; i < 64; i++) CHECK(r[i] == 1000 + i, "r[%d] = %d", i, r[i]);
  return tc_done();
}
