// private variables are per device thread and uninitialised; their values
// never reach the host.
#include "check.h"

int main(void) {
  int t = 42, out[100];
  double acc = -1;
#pragma omp target teams distribute parallel for private(t) map(from: out)
  for (int i = 0; i < 100; i++) {
    t = i * 3;
    out[i] = t + 1;
  }
#pragma omp target private(acc) map(from: out[0:1])
  {
    acc = 0;
    for (int i = 0; i < 10; i++) acc += i;
    out[0] = (int)acc;
  }
  CHECK(t == 42, "private t leaked to host: %d", t);
  CHECK(acc == -1, "private acc leaked to host: %g", acc);
  CHECK(out[0] == 45, "out[0] = %d", out[0]);
  for (int i = 1; i < 100; i++) CHECK(out[i] == i * 3 + 1, "out[%d] = %d", i, out[i]);
  return tc_done();
}
