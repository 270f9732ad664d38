// use_device_ptr gives the device address of mapped data on the host; it
// can be passed to is_device_ptr regions and omp_target_memcpy.
#include "check.h"
#include <omp.h>

#define N 64

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  float *p = malloc(N * sizeof *p);
  float *seen = NULL;
  for (int i = 0; i < N; i++) p[i] = i;
#pragma omp target data map(tofrom: p[0:N])
  {
#pragma omp target data use_device_ptr(p)
    {
      seen = p;
#pragma omp target is_device_ptr(p)
      for (int i = 0; i < N; i++) p[i] += 0.5f;
      float two[2] = {-1, -2};
      CHECK(omp_target_memcpy(p, two, sizeof two, 0, 0, dev, host) == 0, "memcpy");
    }
  }
  CHECK(seen != NULL && seen != p, "use_device_ptr gave %p for host %p", (void *)seen, (void *)p);
  CHECK(p[0] == -1 && p[1] == -2, "p[0]=%g p[1]=%g", p[0], p[1]);
  for (int i = 2; i < N; i++) CHECK(p[i] == i + 0.5f, "p[%d] = %g", i, p[i]);
  free(p);
  return tc_done();
}
