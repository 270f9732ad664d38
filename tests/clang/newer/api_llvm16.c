// The API functions LLVM's runtime exports from 16 on, as a clang-16
// program calls them: omp_get_mapped_ptr, omp_get_device_num,
// llvm_omp_target_alloc_* / free_*, llvm_omp_target_lock_mem /
// unlock_mem and llvm_omp_target_dynamic_shared_alloc (NULL on the host).
// MIN-CLANG: 16
#include "check.h"
#include <omp.h>
#include <stdint.h>

void *llvm_omp_target_alloc_device(size_t, int);
void *llvm_omp_target_alloc_host(size_t, int);
void llvm_omp_target_free_device(void *, int);
void llvm_omp_target_free_host(void *, int);
void *llvm_omp_target_lock_mem(void *, size_t, int);
void llvm_omp_target_unlock_mem(void *, int);
void *llvm_omp_target_dynamic_shared_alloc(void);

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  CHECK(omp_get_device_num() == host, "omp_get_device_num() = %d on the host (%d)",
        omp_get_device_num(), host);
  double v[10];
  for (int i = 0; i < 10; i++) v[i] = i;
  CHECK(omp_get_mapped_ptr(v, dev) == NULL, "mapped before");
#pragma omp target data map(tofrom : v)
  {
    double *dv = omp_get_mapped_ptr(v, dev);
    uintptr_t seen = 0;
#pragma omp target map(from : seen)
    seen = (uintptr_t)v;
    CHECK(dv && (uintptr_t)dv == seen, "omp_get_mapped_ptr %p, the device saw %#lx",
          (void *)dv, (unsigned long)seen);
    CHECK(omp_get_mapped_ptr(&v[9], dev) == dv + 9, "interior pointer");
    CHECK(omp_get_mapped_ptr(v, host) == v, "host device");
  }
  CHECK(omp_get_mapped_ptr(v, dev) == NULL, "mapped after");

  double *d = llvm_omp_target_alloc_device(sizeof v, dev);
  double *h = llvm_omp_target_alloc_host(sizeof v, dev);
  CHECK(d && h, "llvm_omp_target_alloc_*: %p %p", (void *)d, (void *)h);
  if (d && h) {
    double sum = 0;
#pragma omp target is_device_ptr(d) map(tofrom : sum)
    {
      for (int i = 0; i < 10; i++) d[i] = 2 * i;
      for (int i = 0; i < 10; i++) sum += d[i];
    }
    CHECK(sum == 90, "sum on the device %g", sum);
    for (int i = 0; i < 10; i++) h[i] = i;
    llvm_omp_target_free_device(d, dev);
    llvm_omp_target_free_host(h, dev);
  }
  CHECK(llvm_omp_target_lock_mem(v, sizeof v, dev) == v, "lock_mem");
  llvm_omp_target_unlock_mem(v, dev);
  CHECK(llvm_omp_target_dynamic_shared_alloc() == NULL, "dynamic shared memory on the host");
  return tc_done();
}
