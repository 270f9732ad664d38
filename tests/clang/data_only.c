// A program whose only offload constructs are data constructs and API
// calls: its device image has no kernels and no defined dynamic symbols,
// only undefined weak ones (_ITM_*, __gmon_start__, __cxa_finalize).  The
// device must still load it.
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int a[64], back[64];
  for (int i = 0; i < 64; i++) a[i] = i;
#pragma omp target enter data map(to: a)
  CHECK(omp_target_is_present(a, dev), "a not present after enter data");
  int *d = NULL;
#pragma omp target data use_device_ptr(d)
  ;
  void *da = NULL;
#pragma omp target data map(alloc: a) use_device_addr(a)
  da = a;
  CHECK(da != NULL && da != (void *)a, "use_device_addr gave %p for %p", da, (void *)a);
  CHECK(omp_target_memcpy(back, da, sizeof back, 0, 0, host, dev) == 0, "memcpy from device");
  for (int i = 0; i < 64; i++) CHECK(back[i] == i, "device a[%d] = %d", i, back[i]);
  int seven = 7;
  CHECK(omp_target_memcpy(da, &seven, sizeof seven, 5 * sizeof(int), 0, dev, host) == 0, "memcpy to device");
#pragma omp target update from(a[5:1])
  CHECK(a[5] == 7 && a[4] == 4, "a[5] = %d after update from", a[5]);
#pragma omp target exit data map(delete: a)
  CHECK(!omp_target_is_present(a, dev), "a present after delete");
  (void)d;
  return tc_done();
}
