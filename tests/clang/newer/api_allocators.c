// LLVM's target memory allocators of libomp (llvm_omp_target_host_mem_alloc,
// _shared_, _device_): libomp looks up llvm_omp_target_alloc_* and, from 16
// on, llvm_omp_target_free_* in the offload runtime, and gives NULL when
// one is missing.  Device and shared memory is filled through
// omp_target_memcpy, host memory by the host.
// MIN-CLANG: 16
#include "check.h"
#include <omp.h>

#define N 32

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int src[N], back[N];
  for (int i = 0; i < N; i++) src[i] = 7 * i;
  omp_allocator_handle_t al[3] = {llvm_omp_target_device_mem_alloc,
                                  llvm_omp_target_host_mem_alloc,
                                  llvm_omp_target_shared_mem_alloc};
  for (int k = 0; k < 3; k++) {
    int *p = omp_alloc(sizeof src, al[k]);
    CHECK(p != NULL, "omp_alloc with allocator %d gave NULL", k);
    if (!p)
      continue;
    memset(back, 0, sizeof back);
    if (al[k] == llvm_omp_target_host_mem_alloc) { /* host memory */
      memcpy(p, src, sizeof src);
      memcpy(back, p, sizeof back);
      CHECK(back[N - 1] == 7 * (N - 1), "host memory: back[%d] = %d", N - 1, back[N - 1]);
      omp_free(p, al[k]);
      continue;
    }
    CHECK(omp_target_memcpy(p, src, sizeof src, 0, 0, dev, host) == 0, "to %d", k);
    CHECK(omp_target_memcpy(back, p, sizeof back, 0, 0, host, dev) == 0, "from %d", k);
    CHECK(back[N - 1] == 7 * (N - 1), "allocator %d: back[%d] = %d", k, N - 1, back[N - 1]);
    omp_free(p, al[k]);
  }
  return tc_done();
}
