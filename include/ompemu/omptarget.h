/* ompemu host runtime interface: every function libomptarget.so exports
 * (LLVM 14's set, docs/abi-clang14.md sections 2-3, plus
 * __tgt_get_num_devices and __tgt_register_image_info,
 * docs/offload-wrapper.md).  All return OFFLOAD_SUCCESS (0) or
 * OFFLOAD_FAIL (-1) unless stated; a non-zero return from a __tgt_target*
 * call makes clang's code run the host version of the region. */
#ifndef OMPEMU_OMPTARGET_H
#define OMPEMU_OMPTARGET_H

#include <ompemu/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registration (called from constructors/destructors of the binary). */
void __tgt_register_requires(int64_t flags);
void __tgt_register_lib(__tgt_bin_desc *desc);
void __tgt_unregister_lib(__tgt_bin_desc *desc);
void __tgt_register_image_info(__tgt_image_info *info);
void __tgt_init_all_rtls(void);
void __tgt_set_info_flag(uint32_t flags);
int __tgt_print_device_info(int64_t device_id);
int __tgt_get_num_devices(void);

/* Kernel launch.  num_teams/thread_limit 0 mean "unspecified". */
int __tgt_target_mapper(ident_t *loc, int64_t device_id, void *host_ptr,
                        int32_t arg_num, void **args_base, void **args,
                        int64_t *arg_sizes, int64_t *arg_types,
                        map_var_info_t *arg_names, void **arg_mappers);
int __tgt_target_teams_mapper(ident_t *loc, int64_t device_id, void *host_ptr,
                              int32_t arg_num, void **args_base, void **args,
                              int64_t *arg_sizes, int64_t *arg_types,
                              map_var_info_t *arg_names, void **arg_mappers,
                              int32_t num_teams, int32_t thread_limit);
int __tgt_target_nowait_mapper(ident_t *loc, int64_t device_id, void *host_ptr,
                               int32_t arg_num, void **args_base, void **args,
                               int64_t *arg_sizes, int64_t *arg_types,
                               map_var_info_t *arg_names, void **arg_mappers,
                               int32_t dep_num, void *dep_list,
                               int32_t noalias_dep_num, void *noalias_dep_list);
int __tgt_target_teams_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    map_var_info_t *arg_names, void **arg_mappers, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list);

/* Legacy forms: the mapper forms with loc, names and mappers NULL. */
int __tgt_target(int64_t device_id, void *host_ptr, int32_t arg_num,
                 void **args_base, void **args, int64_t *arg_sizes,
                 int64_t *arg_types);
int __tgt_target_nowait(int64_t device_id, void *host_ptr, int32_t arg_num,
                        void **args_base, void **args, int64_t *arg_sizes,
                        int64_t *arg_types, int32_t dep_num, void *dep_list,
                        int32_t noalias_dep_num, void *noalias_dep_list);
int __tgt_target_teams(int64_t device_id, void *host_ptr, int32_t arg_num,
                       void **args_base, void **args, int64_t *arg_sizes,
                       int64_t *arg_types, int32_t num_teams,
                       int32_t thread_limit);
int __tgt_target_teams_nowait(int64_t device_id, void *host_ptr,
                              int32_t arg_num, void **args_base, void **args,
                              int64_t *arg_sizes, int64_t *arg_types,
                              int32_t num_teams, int32_t thread_limit,
                              int32_t dep_num, void *dep_list,
                              int32_t noalias_dep_num, void *noalias_dep_list);

/* Kernel launch of clang 16 and later (docs/abi-clang16-19.md 2): one
 * call, the map list and launch bounds in a KernelArgs block (versions 1
 * to 3, 64 or 104 bytes; layout in src/runtime/kernel_args.h).  Version 3
 * kernels take a leading dyn_ptr argument, (void *)~0. */
int __tgt_target_kernel(ident_t *loc, int64_t device_id, int32_t num_teams,
                        int32_t thread_limit, void *host_ptr,
                        void *kernel_args);
int __tgt_target_kernel_nowait(ident_t *loc, int64_t device_id,
                               int32_t num_teams, int32_t thread_limit,
                               void *host_ptr, void *kernel_args,
                               int32_t dep_num, void *dep_list,
                               int32_t noalias_dep_num,
                               void *noalias_dep_list);
/* libomp's poll of a target task's handle: every launch completes before
 * it returns, so *ASYNC_HANDLE is set to NULL (done). */
void __tgt_target_nowait_query(void **async_handle);

/* Data regions, enter/exit data, update.  Clang 14 passes only the first
 * nine arguments to the _nowait_mapper forms: they must not read more. */
#define OMPEMU_DATA_MAPPER_ARGS                                              \
  ident_t *loc, int64_t device_id, int32_t arg_num, void **args_base,        \
      void **args, int64_t *arg_sizes, int64_t *arg_types,                   \
      map_var_info_t *arg_names, void **arg_mappers
#define OMPEMU_DATA_LEGACY_ARGS                                              \
  int64_t device_id, int32_t arg_num, void **args_base, void **args,         \
      int64_t *arg_sizes, int64_t *arg_types
#define OMPEMU_DEP_ARGS                                                      \
  int32_t dep_num, void *dep_list, int32_t noalias_dep_num,                  \
      void *noalias_dep_list

void __tgt_target_data_begin_mapper(OMPEMU_DATA_MAPPER_ARGS);
void __tgt_target_data_end_mapper(OMPEMU_DATA_MAPPER_ARGS);
void __tgt_target_data_update_mapper(OMPEMU_DATA_MAPPER_ARGS);
void __tgt_target_data_begin_nowait_mapper(OMPEMU_DATA_MAPPER_ARGS, OMPEMU_DEP_ARGS);
void __tgt_target_data_end_nowait_mapper(OMPEMU_DATA_MAPPER_ARGS, OMPEMU_DEP_ARGS);
void __tgt_target_data_update_nowait_mapper(OMPEMU_DATA_MAPPER_ARGS, OMPEMU_DEP_ARGS);
void __tgt_target_data_begin(OMPEMU_DATA_LEGACY_ARGS);
void __tgt_target_data_end(OMPEMU_DATA_LEGACY_ARGS);
void __tgt_target_data_update(OMPEMU_DATA_LEGACY_ARGS);
void __tgt_target_data_begin_nowait(OMPEMU_DATA_LEGACY_ARGS, OMPEMU_DEP_ARGS);
void __tgt_target_data_end_nowait(OMPEMU_DATA_LEGACY_ARGS, OMPEMU_DEP_ARGS);
void __tgt_target_data_update_nowait(OMPEMU_DATA_LEGACY_ARGS, OMPEMU_DEP_ARGS);

/* Loop trip count for the next teams launch by this thread. */
void __kmpc_push_target_tripcount_mapper(ident_t *loc, int64_t device_id,
                                         uint64_t loop_tripcount);
void __kmpc_push_target_tripcount(int64_t device_id, uint64_t loop_tripcount);

/* User-defined mappers: called from compiler-generated mapper functions. */
int64_t __tgt_mapper_num_components(void *rt_mapper_handle);
void __tgt_push_mapper_component(void *rt_mapper_handle, void *base,
                                 void *begin, int64_t size, int64_t type,
                                 void *name);

/* Interop (OpenMP 5.1). */
void __tgt_interop_init(ident_t *loc, int32_t gtid, void **interop,
                        int64_t interop_type, int32_t device_id, int32_t ndeps,
                        void *dep_list, int32_t have_nowait);
void __tgt_interop_use(ident_t *loc, int32_t gtid, void **interop,
                       int32_t device_id, int32_t ndeps, void *dep_list,
                       int32_t have_nowait);
void __tgt_interop_destroy(ident_t *loc, int32_t gtid, void **interop,
                           int32_t device_id, int32_t ndeps, void *dep_list,
                           int32_t have_nowait);

/* OpenMP device memory API. */
int omp_get_num_devices(void);
int omp_get_initial_device(void);
void *omp_target_alloc(size_t size, int device_num);
void omp_target_free(void *device_ptr, int device_num);
int omp_target_is_present(const void *ptr, int device_num);
int omp_target_memcpy(void *dst, const void *src, size_t length,
                      size_t dst_offset, size_t src_offset, int dst_device,
                      int src_device);
int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size,
                           int num_dims, const size_t *volume,
                           const size_t *dst_offsets, const size_t *src_offsets,
                           const size_t *dst_dimensions,
                           const size_t *src_dimensions, int dst_device,
                           int src_device);
int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                             size_t size, size_t device_offset, int device_num);
int omp_target_disassociate_ptr(const void *host_ptr, int device_num);
void *llvm_omp_target_alloc_device(size_t size, int device_num);
void *llvm_omp_target_alloc_host(size_t size, int device_num);
void *llvm_omp_target_alloc_shared(size_t size, int device_num);
void *llvm_omp_get_dynamic_shared(void);

/* What newer omp.h files declare (LLVM 16 to 22 export them): OpenMP 5.1
 * and 6.0 routines and LLVM's extensions.  A depend object list
 * (omp_depend_t *, omp_depend_t being void *) is a void **. */
int omp_get_device_num(void);
void *omp_get_mapped_ptr(const void *ptr, int device_num);
void *omp_target_memset(void *ptr, int value, size_t count, int device_num);
void *omp_target_memset_async(void *ptr, int value, size_t count,
                              int device_num, int depobj_count,
                              void **depobj_list);
int omp_target_memcpy_async(void *dst, const void *src, size_t length,
                            size_t dst_offset, size_t src_offset,
                            int dst_device, int src_device, int depobj_count,
                            void **depobj_list);
int omp_target_memcpy_rect_async(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions, int dst_device,
    int src_device, int depobj_count, void **depobj_list);
int omp_target_is_accessible(const void *ptr, size_t size, int device_num);
const char *omp_get_uid_from_device(int device_num);
int omp_get_device_from_uid(const char *device_uid);
void llvm_omp_target_free_device(void *device_ptr, int device_num);
void llvm_omp_target_free_host(void *device_ptr, int device_num);
void llvm_omp_target_free_shared(void *device_ptr, int device_num);
void *llvm_omp_target_lock_mem(void *ptr, size_t size, int device_num);
void llvm_omp_target_unlock_mem(void *ptr, int device_num);
void *llvm_omp_target_dynamic_shared_alloc(void);
void ompx_dump_mapping_tables(void);

/* Interop properties (libomp forwards these with RTLD_NEXT). */
typedef void *omp_interop_t;
typedef intptr_t omp_intptr_t;
int omp_get_num_interop_properties(const omp_interop_t interop);
omp_intptr_t omp_get_interop_int(const omp_interop_t interop, int property_id, int *ret_code);
void *omp_get_interop_ptr(const omp_interop_t interop, int property_id, int *ret_code);
const char *omp_get_interop_str(const omp_interop_t interop, int property_id, int *ret_code);
const char *omp_get_interop_name(const omp_interop_t interop, int property_id);
const char *omp_get_interop_type_desc(const omp_interop_t interop, int property_id);

#ifdef __cplusplus
}
#endif
#endif
