/* Front door: the queries newer omp.h files declare (OpenMP 5.1 and 6.0;
 * LLVM 16 to 22 export them): omp_get_device_num and omp_get_mapped_ptr
 * (16), ompx_dump_mapping_tables (19), omp_target_is_accessible and the
 * device unique ids (22).  Thin shims into device_query.c and
 * dump_api.c. */
#include "config.h"
#include "doors.h"
#include <ompemu/omptarget.h>

/* On the host: the host's device number, as LLVM's libomptarget and
 * libomp answer (device code binds the emu device runtime's own). */
RT_EXPORT int omp_get_device_num(void) { return rt_num_devices(); }

RT_EXPORT void *omp_get_mapped_ptr(const void *ptr, int device_num) {
  return rt_get_mapped_ptr(ptr, device_num);
}

RT_EXPORT int omp_target_is_accessible(const void *ptr, size_t size,
                                       int device_num) {
  return rt_target_is_accessible(ptr, size, device_num);
}

RT_EXPORT const char *omp_get_uid_from_device(int device_num) {
  return rt_uid_from_device(device_num);
}

RT_EXPORT int omp_get_device_from_uid(const char *device_uid) {
  return rt_device_from_uid(device_uid);
}

RT_EXPORT void ompx_dump_mapping_tables(void) { rt_dump_mapping_tables(); }
