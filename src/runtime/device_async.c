/* The _async device memory routines of OpenMP 5.1/6.0
 * (omp_target_memcpy_async, omp_target_memcpy_rect_async,
 * omp_target_memset_async).  OpenMP runs each as a target task that
 * depends on the depend objects passed in.  ompemu runs it as an
 * undeferred task would: it first waits, through libomp's
 * __kmpc_omp_wait_deps, for the sibling tasks those dependences name,
 * then does the work on the calling thread and returns when it is done.
 * Later tasks that depend on the same objects therefore see it finished.
 *
 * An omp_depend_t made by `#pragma omp depobj` points at libomp's
 * kmp_depend_info records; the record before the first holds their number
 * in its base_addr (clang's layout since clang 11). */
#include "config.h"
#include "check_api.h"
#include "data.h"
#include "trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kmp_dep {
  intptr_t base_addr;
  size_t len;
  unsigned char flags;
};

void __kmpc_omp_wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                          void *dep_list, int32_t ndeps_noalias,
                          void *noalias_dep_list) __attribute__((weak));
int32_t __kmpc_global_thread_num(ident_t *loc) __attribute__((weak));

/* Wait for the dependences of the COUNT depend objects LIST.  0, or -1
 * (reported, naming the call of API_NAME that returns to RA) when the
 * list is malformed. */
static int wait_depobjs(int count, void **list, const char *api_name,
                        const void *ra) {
  char api[1400];
  if (count == 0)
    return 0;
  snprintf(api, sizeof api, "%s", api_name); /* the call named on failure */
  if (count < 0 || !list) {
    check_api_call(api_name, ra, -1, api, sizeof api);
    ompemu_error("ompemu", "%s: depobj_count %d with depobj_list " OMPEMU_PTR
                 ": not a list of depend objects: nothing done", api, count,
                 OMPEMU_P(list));
    return -1;
  }
  size_t total = 0;
  for (int i = 0; i < count; i++) {
    const struct kmp_dep *d = list[i];
    if (!d || d[-1].base_addr < 0 || d[-1].base_addr > INT32_MAX) {
      check_api_call(api_name, ra, -1, api, sizeof api);
      ompemu_error("ompemu", "%s: depobj_list[%d] is not an initialised "
                   "depend object (#pragma omp depobj): nothing done", api, i);
      return -1;
    }
    total += (size_t)d[-1].base_addr;
  }
  if (total == 0)
    return 0;
  if (!__kmpc_omp_wait_deps || !__kmpc_global_thread_num) {
    ompemu_warning("ompemu", "%s: no LLVM OpenMP runtime (libomp) in the "
                   "process to wait for the %zu dependences of its depend "
                   "objects: running it now", api, total);
    return 0;
  }
  if (total > INT32_MAX) {
    check_api_call(api_name, ra, -1, api, sizeof api);
    ompemu_error("ompemu", "%s: %zu dependences: too many: nothing done", api,
                 total);
    return -1;
  }
  struct kmp_dep *all = malloc(total * sizeof *all);
  if (!all) {
    check_api_call(api_name, ra, -1, api, sizeof api);
    ompemu_error("ompemu", "%s: out of memory for %zu dependences: nothing "
                 "done", api, total);
    return -1;
  }
  size_t n = 0;
  for (int i = 0; i < count; i++) {
    const struct kmp_dep *d = list[i];
    size_t k = (size_t)d[-1].base_addr;
    memcpy(all + n, d, k * sizeof *d);
    n += k;
  }
  DTRACE(2, "%s: waiting for %zu dependences of %d depend objects", api,
         total, count);
  __kmpc_omp_wait_deps(NULL, __kmpc_global_thread_num(NULL), (int32_t)total,
                       all, 0, NULL);
  free(all);
  return 0;
}

int rt_target_memcpy_async(void *dst, const void *src, size_t length,
                           size_t dst_offset, size_t src_offset,
                           int dst_device, int src_device, int depobj_count,
                           void **depobj_list, const void *ra) {
  const char *api = "omp_target_memcpy_async";
  if (wait_depobjs(depobj_count, depobj_list, api, ra))
    return OFFLOAD_FAIL;
  return rt_target_memcpy(dst, src, length, dst_offset, src_offset,
                          dst_device, src_device, api, ra);
}

int rt_target_memcpy_rect_async(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions, int dst_device,
    int src_device, int depobj_count, void **depobj_list, const void *ra) {
  const char *api = "omp_target_memcpy_rect_async";
  if (!dst && !src) /* the query for the dimensions supported */
    return rt_target_memcpy_rect(dst, src, element_size, num_dims, volume,
                                 dst_offsets, src_offsets, dst_dimensions,
                                 src_dimensions, dst_device, src_device, api,
                                 ra);
  if (wait_depobjs(depobj_count, depobj_list, api, ra))
    return OFFLOAD_FAIL;
  return rt_target_memcpy_rect(dst, src, element_size, num_dims, volume,
                               dst_offsets, src_offsets, dst_dimensions,
                               src_dimensions, dst_device, src_device, api,
                               ra);
}

int rt_target_memset_async(void *ptr, int value, size_t count, int device,
                           int depobj_count, void **depobj_list) {
  const char *api = "omp_target_memset_async";
  if (wait_depobjs(depobj_count, depobj_list, api, NULL))
    return OFFLOAD_FAIL;
  return rt_target_memset(ptr, value, count, device, api);
}
