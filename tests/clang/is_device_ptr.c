// Device memory from omp_target_alloc used in target regions through
// is_device_ptr, filled and read back with omp_target_memcpy.
#include "check.h"
#include <omp.h>

#define N 500

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int *d = omp_target_alloc(N * sizeof(int), dev);
  CHECK(d != NULL, "omp_target_alloc failed");
  if (!d) return tc_done();
  int h[N];
  for (int i = 0; i < N; i++) h[i] = i;
  CHECK(omp_target_memcpy(d, h, sizeof h, 0, 0, dev, host) == 0, "memcpy to device");
#pragma omp target is_device_ptr(d)
  for (int i = 0; i < N; i++) d[i] *= 5;
#pragma omp target teams distribute parallel for is_device_ptr(d)
  for (int i = 0; i < N; i++) d[i] += 1;
  memset(h, 0, sizeof h);
  CHECK(omp_target_memcpy(h, d, sizeof h, 0, 0, host, dev) == 0, "memcpy from device");
  for (int i = 0; i < N; i++)
    if (h[i] != 5 * i + 1) { CHECK(h[i] == 5 * i + 1, "h[%d] = %d", i, h[i]); break; }
  omp_target_free(d, dev);
  return tc_done();
}
