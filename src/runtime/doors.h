/* What the front doors call.  Every function libomptarget.so exports is
 * defined in abi/, one file per group (a compiler generation's entry
 * points are a door of their own), as a thin shim that turns its
 * arguments into one call of a function here; nothing outside abi/ calls
 * an exported function (tests/unit/call_cycles.sh checks it).
 *
 * The kernel launch takes one descriptor, struct rt_launch, so every
 * door that launches a kernel (clang 14's __tgt_target*_mapper today,
 * __tgt_target_kernel's KernelArgs tomorrow) fills the same struct and
 * shares one launch path.  Filling it costs no allocation and no lock. */
#ifndef OMPEMU_DOORS_H
#define OMPEMU_DOORS_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

/* The map list of one construct, as the compiler passes it. */
struct rt_args {
  ident_t *loc;          /* source location, or NULL */
  int32_t n;             /* entries */
  void **base;           /* args_base */
  void **begin;          /* args */
  int64_t *sizes;
  int64_t *types;        /* OMP_TGT_MAPTYPE_* */
  map_var_info_t *names; /* or NULL */
  void **mappers;        /* user-defined mapper functions, or NULL */
  int from_mapper;       /* components produced by a user-defined mapper */
  int mapper_ref;        /* from_mapper: component 0 holds the reference of
                            the list item the mapper was called for */
  int nowait;            /* a data construct's _nowait form (a deferred
                            target task: observers see it as nowait) */
};

/* untrusted.c: LOC, or NULL when it or its psource is unreadable; in A,
 * the same for loc, and names NULL when any name is unreadable.  For the
 * paths that read them (messages, traces, INFO, observers). */
RT_HIDDEN ident_t *rt_loc_readable(ident_t *loc);
RT_HIDDEN void rt_args_readable(struct rt_args *a);
/* Whether anything that reads locations and names is on. */
#define RT_READS_NAMES()                                                     \
  (OBS_ON() || OMPEMU_TRACE_ON(1) || rt_state.info_flags)

/* One kernel launch.  The doors set every field one by one (launch() in
 * abi/target_clang14.c, rt_kernel_args_decode): a field added here must be
 * set there too. */
struct rt_launch {
  int64_t device_id;     /* OFFLOAD_DEVICE_DEFAULT: the default device */
  void *host_ptr;        /* the region's host entry address (its id) */
  struct rt_args args;   /* the map list; args.loc is the construct's */
  int teams;             /* a teams construct: run_target_team_region */
  int32_t num_teams[3];  /* 0: unspecified; LLVM 14's plugin interface */
  int32_t thread_limit[3]; /* takes only the first dimension */
  /* Loop trip count; 0: none given, then the one this thread pushed with
   * __kmpc_push_target_tripcount for the device, if any. */
  uint64_t tripcount;
  uint64_t dyn_mem;      /* dynamic group memory asked for, in bytes
                            (LLVM 14's plugin interface passes none) */
  int nowait;            /* may complete asynchronously (done in order,
                            before rt_target returns, as LLVM 14 does) */
  int prepend_dyn_ptr;   /* pass (void *)~0 as the kernel's first argument
                            (the dyn_ptr of KernelArgs version >= 3) */
};

/* lifecycle.c */
RT_HIDDEN void rt_register_lib(__tgt_bin_desc *desc);
RT_HIDDEN void rt_init_all_rtls(void);

/* registry.c */
RT_HIDDEN void rt_register_requires(int64_t flags);
RT_HIDDEN void rt_register_image_info(__tgt_image_info *info);
RT_HIDDEN void rt_unregister_lib(__tgt_bin_desc *desc);

/* plugin_loader.c */
RT_HIDDEN void rt_plugins_set_info_flag(uint32_t flags);
/* device.c: 1 if the plugin printed something, 0 otherwise. */
RT_HIDDEN int rt_print_device_info(int64_t device_id);

/* launch.c: offload the region L describes (data begin, kernel, data end)
 * and apply the offload policy: OFFLOAD_SUCCESS, or OFFLOAD_FAIL when the
 * region did not run on the device (the caller runs the host version). */
RT_HIDDEN int rt_target(const struct rt_launch *l);
/* Remember COUNT as the next launch's trip count on DEVICE_ID for this
 * thread.  A device that is not ready fails the construct at LOC here,
 * as in LLVM 14. */
RT_HIDDEN void rt_push_tripcount(ident_t *loc, int64_t device_id,
                                 uint64_t count);

/* data_construct.c: data begin (enter data), end (exit data) or update on
 * DEVICE_ID for the map list A, then the offload policy.  OFFLOAD_SUCCESS
 * or OFFLOAD_FAIL. */
enum rt_data_kind { RT_DATA_BEGIN, RT_DATA_END, RT_DATA_UPDATE };
RT_HIDDEN int rt_target_data(enum rt_data_kind kind, int64_t device_id,
                             const struct rt_args *a);

/* mapper.c: the handle a compiler-generated mapper function fills. */
RT_HIDDEN int64_t rt_mapper_num_components(void *handle);
RT_HIDDEN void rt_mapper_push(void *handle, void *base, void *begin,
                              int64_t size, int64_t type, void *name);

/* device_memory.c: the OpenMP device memory routines (omp_target_*),
 * LLVM 14's return values and messages.  KIND: TARGET_ALLOC_*; API: the
 * name of the routine the user called, RA its return address
 * (__builtin_return_address(0) in the front door), for messages that
 * name the call by source line and argument (check_api.h). */
RT_HIDDEN void *rt_target_alloc(size_t size, int device, int32_t kind,
                                const char *api, const void *ra);
RT_HIDDEN void rt_target_free(void *ptr, int device, const char *api,
                              const void *ra);
RT_HIDDEN int rt_target_is_present(const void *ptr, int device);
RT_HIDDEN int rt_target_memcpy(void *dst, const void *src, size_t length,
                               size_t dst_offset, size_t src_offset,
                               int dst_device, int src_device,
                               const char *api, const void *ra);
RT_HIDDEN int rt_target_memcpy_rect(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions, int dst_device,
    int src_device, const char *api, const void *ra);
RT_HIDDEN int rt_target_associate_ptr(const void *host_ptr,
                                      const void *device_ptr, size_t size,
                                      size_t device_offset, int device,
                                      const void *ra);
RT_HIDDEN int rt_target_disassociate_ptr(const void *host_ptr, int device,
                                         const void *ra);

/* interop.c: OpenMP 5.1 interop objects and their properties. */
RT_HIDDEN void rt_interop_init(ident_t *loc, int32_t gtid, void **interop,
                               int64_t interop_type, int32_t device_id,
                               int32_t ndeps, void *dep_list);
RT_HIDDEN void rt_interop_use(ident_t *loc, int32_t gtid, void **interop,
                              int32_t ndeps, void *dep_list);
RT_HIDDEN void rt_interop_destroy(ident_t *loc, int32_t gtid, void **interop,
                                  int32_t ndeps, void *dep_list);
RT_HIDDEN intptr_t rt_interop_get_int(const void *interop, int property_id,
                                      int *ret_code);
RT_HIDDEN void *rt_interop_get_ptr(const void *interop, int property_id,
                                   int *ret_code);
RT_HIDDEN const char *rt_interop_get_str(const void *interop, int property_id,
                                         int *ret_code);
RT_HIDDEN const char *rt_interop_property_name(int property_id);
RT_HIDDEN const char *rt_interop_property_type(int property_id);

/* The device memory routines newer omp.h files declare (OpenMP 5.1/6.0
 * and LLVM 16-22 extensions), OFFLOAD_SUCCESS / OFFLOAD_FAIL where they
 * return a status.  API: as above.
 * device_memset.c: fill COUNT bytes at PTR on DEVICE with VALUE. */
RT_HIDDEN int rt_target_memset(void *ptr, int value, size_t count, int device,
                               const char *api);
/* device_async.c: the _async forms: wait for the dependences of the
 * DEPOBJ_COUNT depend objects DEPOBJ_LIST (omp_depend_t values), then do
 * the work before returning. */
RT_HIDDEN int rt_target_memcpy_async(void *dst, const void *src,
                                     size_t length, size_t dst_offset,
                                     size_t src_offset, int dst_device,
                                     int src_device, int depobj_count,
                                     void **depobj_list, const void *ra);
RT_HIDDEN int rt_target_memcpy_rect_async(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions, int dst_device,
    int src_device, int depobj_count, void **depobj_list, const void *ra);
RT_HIDDEN int rt_target_memset_async(void *ptr, int value, size_t count,
                                     int device, int depobj_count,
                                     void **depobj_list);
/* device_query.c: omp_get_mapped_ptr, omp_target_is_accessible, the
 * device unique ids (omp_invalid_device, -2, for an unknown one),
 * llvm_omp_target_lock_mem / unlock_mem. */
RT_HIDDEN void *rt_get_mapped_ptr(const void *ptr, int device);
RT_HIDDEN int rt_target_is_accessible(const void *ptr, size_t size,
                                      int device);
RT_HIDDEN const char *rt_uid_from_device(int device);
RT_HIDDEN int rt_device_from_uid(const char *uid);
RT_HIDDEN void *rt_target_lock_mem(void *ptr, size_t size, int device);
RT_HIDDEN void rt_target_unlock_mem(void *ptr, int device);
/* dump_api.c: every device's mapping table on stdout (LLVM's layout). */
RT_HIDDEN void rt_dump_mapping_tables(void);

#endif
