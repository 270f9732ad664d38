// target data keeps arrays on the device across several kernels; results
// come back at the end of the region only.
#include "check.h"

#define N 1024

int main(void) {
  float x[N], y[N];
  for (int i = 0; i < N; i++) { x[i] = i; y[i] = 0; }
#pragma omp target data map(to: x) map(tofrom: y)
  {
    for (int k = 0; k < 3; k++) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++) y[i] += 2.0f * x[i];
    }
    CHECK(y[10] == 0, "y copied back inside the region: %g", y[10]);
  }
  for (int i = 0; i < N; i++)
    if (y[i] != 6.0f * i) { CHECK(y[i] == 6.0f * i, "y[%d] = %g", i, y[i]); break; }
  return tc_done();
}
