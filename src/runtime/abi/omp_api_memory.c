/* Front door: the device memory routines newer omp.h files declare
 * (OpenMP 5.1 and 6.0; LLVM 16 to 22 export them): memset, the _async
 * copies and fill, LLVM's llvm_omp_target_free_* and lock/unlock, and
 * llvm_omp_target_dynamic_shared_alloc.  Thin shims into
 * device_memset.c, device_async.c, device_memory.c and device_query.c. */
#include "config.h"
#include "doors.h"
#include <ompemu/omptarget.h>

/* The caller's return address: messages name the user's call by it. */
#define RA __builtin_return_address(0)

RT_EXPORT void *omp_target_memset(void *ptr, int value, size_t count,
                                  int device_num) {
  rt_target_memset(ptr, value, count, device_num, "omp_target_memset");
  return ptr; /* OpenMP: a copy of PTR, whatever happened */
}

RT_EXPORT void *omp_target_memset_async(void *ptr, int value, size_t count,
                                        int device_num, int depobj_count,
                                        void **depobj_list) {
  rt_target_memset_async(ptr, value, count, device_num, depobj_count,
                         depobj_list);
  return ptr;
}

RT_EXPORT int omp_target_memcpy_async(void *dst, const void *src,
                                      size_t length, size_t dst_offset,
                                      size_t src_offset, int dst_device_num,
                                      int src_device_num, int depobj_count,
                                      void **depobj_list) {
  return rt_target_memcpy_async(dst, src, length, dst_offset, src_offset,
                                dst_device_num, src_device_num, depobj_count,
                                depobj_list, RA);
}

RT_EXPORT int omp_target_memcpy_rect_async(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions,
    int dst_device_num, int src_device_num, int depobj_count,
    void **depobj_list) {
  return rt_target_memcpy_rect_async(
      dst, src, element_size, num_dims, volume, dst_offsets, src_offsets,
      dst_dimensions, src_dimensions, dst_device_num, src_device_num,
      depobj_count, depobj_list, RA);
}

/* libomp 16+ looks these up (with the alloc_* ones) for its
 * llvm_omp_target_{host,shared,device}_mem_alloc allocators. */
RT_EXPORT void llvm_omp_target_free_device(void *device_ptr, int device_num) {
  rt_target_free(device_ptr, device_num, "llvm_omp_target_free_device", RA);
}

RT_EXPORT void llvm_omp_target_free_host(void *device_ptr, int device_num) {
  rt_target_free(device_ptr, device_num, "llvm_omp_target_free_host", RA);
}

RT_EXPORT void llvm_omp_target_free_shared(void *device_ptr, int device_num) {
  rt_target_free(device_ptr, device_num, "llvm_omp_target_free_shared", RA);
}

RT_EXPORT void *llvm_omp_target_lock_mem(void *ptr, size_t size,
                                         int device_num) {
  return rt_target_lock_mem(ptr, size, device_num);
}

RT_EXPORT void llvm_omp_target_unlock_mem(void *ptr, int device_num) {
  rt_target_unlock_mem(ptr, device_num);
}

/* Device code's dynamic group memory; on the host there is none (LLVM's
 * host version returns NULL too). */
RT_EXPORT void *llvm_omp_target_dynamic_shared_alloc(void) { return NULL; }
