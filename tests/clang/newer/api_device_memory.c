// Device memory API functions that omp.h of LLVM 16+ declares and that
// programs call directly: omp_get_mapped_ptr, omp_get_device_num,
// omp_target_memcpy_async, omp_target_memcpy_rect_async (LLVM's runtime
// exports the async ones from 19 on), and LLVM's llvm_omp_target_alloc_* /
// llvm_omp_target_free_* pairs.
// MIN-CLANG: 19
#include "check.h"
#include <omp.h>
#include <stdint.h>

/* LLVM's extensions; omp.h declares the allocators only. */
void *llvm_omp_target_alloc_device(size_t, int);
void *llvm_omp_target_alloc_host(size_t, int);
void *llvm_omp_target_alloc_shared(size_t, int);
void llvm_omp_target_free_device(void *, int);
void llvm_omp_target_free_host(void *, int);
void llvm_omp_target_free_shared(void *, int);

#define N 32

int main(void) {
  int dev = omp_get_default_device();
  int host = omp_get_initial_device();
  CHECK(omp_get_device_num() == host, "omp_get_device_num() on the host = %d, initial device %d",
        omp_get_device_num(), host);

  /* omp_get_mapped_ptr: NULL before mapping, the device address while
   * mapped (the one the device sees), the pointer itself for the host. */
  int a[N];
  for (int i = 0; i < N; i++) a[i] = i;
  CHECK(omp_get_mapped_ptr(a, dev) == NULL, "mapped before enter data: %p", omp_get_mapped_ptr(a, dev));
  CHECK(omp_get_mapped_ptr(a, host) == a, "for the initial device: %p (host %p)", omp_get_mapped_ptr(a, host), (void *)a);
#pragma omp target enter data map(to: a)
  void *dp = omp_get_mapped_ptr(a, dev);
  uintptr_t seen = 0;
#pragma omp target map(from: seen)
  seen = (uintptr_t)a;
  CHECK(dp != NULL && (uintptr_t)dp == seen, "omp_get_mapped_ptr %p, device saw %#lx", dp, (unsigned long)seen);
  CHECK(omp_get_mapped_ptr(&a[4], dev) == (char *)dp + 4 * sizeof(int), "interior pointer: %p", omp_get_mapped_ptr(&a[4], dev));

  /* omp_target_memcpy_async into the mapped copy, then read it back */
  int b[N];
  for (int i = 0; i < N; i++) b[i] = 1000 + i;
  int rc = omp_target_memcpy_async(dp, b, N * sizeof(int), 0, 0, dev, host, 0, NULL);
  CHECK(rc == 0, "omp_target_memcpy_async returned %d", rc);
#pragma omp taskwait
#pragma omp target exit data map(from: a)
  CHECK(a[0] == 1000 && a[N - 1] == 1000 + N - 1, "after async copy: a = %d .. %d", a[0], a[N - 1]);
  CHECK(omp_get_mapped_ptr(a, dev) == NULL, "mapped after exit data: %p", omp_get_mapped_ptr(a, dev));

  /* omp_target_memcpy_rect_async: the 2x3 middle of a 4x5 matrix */
  int m[4][5], out[2][3];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 5; j++) m[i][j] = 10 * i + j;
  int *dm = omp_target_alloc(sizeof m, dev);
  CHECK(dm != NULL, "omp_target_alloc");
  rc = omp_target_memcpy(dm, m, sizeof m, 0, 0, dev, host);
  CHECK(rc == 0, "omp_target_memcpy returned %d", rc);
  size_t vol[2] = {2, 3}, doff[2] = {0, 0}, soff[2] = {1, 1}, ddim[2] = {2, 3}, sdim[2] = {4, 5};
  memset(out, 0, sizeof out);
  rc = omp_target_memcpy_rect_async(out, dm, sizeof(int), 2, vol, doff, soff, ddim, sdim, host, dev, 0, NULL);
  CHECK(rc == 0, "omp_target_memcpy_rect_async returned %d", rc);
#pragma omp taskwait
  CHECK(out[0][0] == 11 && out[0][2] == 13 && out[1][0] == 21 && out[1][2] == 23,
        "rect: %d %d / %d %d", out[0][0], out[0][2], out[1][0], out[1][2]);
  omp_target_free(dm, dev);

  /* llvm_omp_target_alloc_* with their own frees */
  int *d = llvm_omp_target_alloc_device(N * sizeof(int), dev);
  int *h = llvm_omp_target_alloc_host(N * sizeof(int), dev);
  int *s = llvm_omp_target_alloc_shared(N * sizeof(int), dev);
  CHECK(d && h && s, "llvm_omp_target_alloc_*: %p %p %p", (void *)d, (void *)h, (void *)s);
  if (d && h && s) {
    int ok = 0;
#pragma omp target is_device_ptr(d) map(from: ok)
    {
      for (int i = 0; i < N; i++) d[i] = 3 * i;
      ok = d[N - 1] == 3 * (N - 1);
    }
    CHECK(ok, "device memory from llvm_omp_target_alloc_device");
    for (int i = 0; i < N; i++) h[i] = s[i] = i;
    llvm_omp_target_free_device(d, dev);
    llvm_omp_target_free_host(h, dev);
    llvm_omp_target_free_shared(s, dev);
  }
  return tc_done();
}
