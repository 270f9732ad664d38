/* Front door: OpenMP 5.1 interop (`#pragma omp interop`, clang 14 with
 * -fopenmp-version=51) and the omp_get_interop_* queries, which libomp
 * forwards here. */
#include "config.h"
#include "doors.h"
#include <ompemu/omptarget.h>

RT_EXPORT void __tgt_interop_init(ident_t *loc, int32_t gtid, void **interop,
                                  int64_t interop_type, int32_t device_id,
                                  int32_t ndeps, void *dep_list,
                                  int32_t have_nowait) {
  rt_interop_init(loc, gtid, interop, interop_type, device_id, ndeps,
                  dep_list);
}

RT_EXPORT void __tgt_interop_use(ident_t *loc, int32_t gtid, void **interop,
                                 int32_t device_id, int32_t ndeps,
                                 void *dep_list, int32_t have_nowait) {
  rt_interop_use(loc, gtid, interop, ndeps, dep_list);
}

RT_EXPORT void __tgt_interop_destroy(ident_t *loc, int32_t gtid, void **interop,
                                     int32_t device_id, int32_t ndeps,
                                     void *dep_list, int32_t have_nowait) {
  rt_interop_destroy(loc, gtid, interop, ndeps, dep_list);
}

RT_EXPORT omp_intptr_t omp_get_interop_int(const omp_interop_t interop,
                                           int property_id, int *ret_code) {
  return rt_interop_get_int(interop, property_id, ret_code);
}

RT_EXPORT void *omp_get_interop_ptr(const omp_interop_t interop,
                                    int property_id, int *ret_code) {
  return rt_interop_get_ptr(interop, property_id, ret_code);
}

RT_EXPORT const char *omp_get_interop_str(const omp_interop_t interop,
                                          int property_id, int *ret_code) {
  return rt_interop_get_str(interop, property_id, ret_code);
}

RT_EXPORT const char *omp_get_interop_name(const omp_interop_t interop,
                                           int property_id) {
  return rt_interop_property_name(property_id);
}

RT_EXPORT const char *omp_get_interop_type_desc(const omp_interop_t interop,
                                                int property_id) {
  return rt_interop_property_type(property_id);
}
