/* Front door: the OpenMP device API libomptarget provides
 * (docs/abi-clang14.md section 3): device counts and the device memory
 * routines, with LLVM's llvm_omp_* extensions.  libomp forwards its own
 * omp_get_num_devices here (through __tgt_get_num_devices, abi/info.c). */
#include "config.h"
#include "doors.h"
#include <ompemu/omptarget.h>

/* The caller's return address: messages name the user's call by it. */
#define RA __builtin_return_address(0)

/* LLVM 14: the devices of the plugins in use (that claimed an image, or
 * after __tgt_init_all_rtls); the host is device number N. */
RT_EXPORT int omp_get_num_devices(void) { return rt_num_devices(); }

RT_EXPORT int omp_get_initial_device(void) { return rt_num_devices(); }

RT_EXPORT void *omp_target_alloc(size_t size, int device_num) {
  return rt_target_alloc(size, device_num, TARGET_ALLOC_DEFAULT,
                         "omp_target_alloc", RA);
}

RT_EXPORT void *llvm_omp_target_alloc_device(size_t size, int device_num) {
  return rt_target_alloc(size, device_num, TARGET_ALLOC_DEVICE,
                         "llvm_omp_target_alloc_device", RA);
}

RT_EXPORT void *llvm_omp_target_alloc_host(size_t size, int device_num) {
  return rt_target_alloc(size, device_num, TARGET_ALLOC_HOST,
                         "llvm_omp_target_alloc_host", RA);
}

RT_EXPORT void *llvm_omp_target_alloc_shared(size_t size, int device_num) {
  return rt_target_alloc(size, device_num, TARGET_ALLOC_SHARED,
                         "llvm_omp_target_alloc_shared", RA);
}

RT_EXPORT void omp_target_free(void *device_ptr, int device_num) {
  rt_target_free(device_ptr, device_num, "omp_target_free", RA);
}

RT_EXPORT int omp_target_is_present(const void *ptr, int device_num) {
  return rt_target_is_present(ptr, device_num);
}

RT_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length,
                                size_t dst_offset, size_t src_offset,
                                int dst_device_num, int src_device_num) {
  return rt_target_memcpy(dst, src, length, dst_offset, src_offset,
                          dst_device_num, src_device_num, "omp_target_memcpy", RA);
}

RT_EXPORT int omp_target_memcpy_rect(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions,
    int dst_device_num, int src_device_num) {
  return rt_target_memcpy_rect(dst, src, element_size, num_dims, volume,
                               dst_offsets, src_offsets, dst_dimensions,
                               src_dimensions, dst_device_num, src_device_num,
                               "omp_target_memcpy_rect", RA);
}

RT_EXPORT int omp_target_associate_ptr(const void *host_ptr,
                                       const void *device_ptr, size_t size,
                                       size_t device_offset, int device_num) {
  return rt_target_associate_ptr(host_ptr, device_ptr, size, device_offset,
                                 device_num, RA);
}

RT_EXPORT int omp_target_disassociate_ptr(const void *host_ptr,
                                          int device_num) {
  return rt_target_disassociate_ptr(host_ptr, device_num, RA);
}

/* No device of LLVM 14's plugin interface has dynamic shared memory. */
RT_EXPORT void *llvm_omp_get_dynamic_shared(void) { return NULL; }
