/* The __tgt_rtl_* plugin interface of LLVM 14 (ABI-llvm14.md section 8) plus
 * the seed's __tgt_rtl_set_function_ptr_map: the only contract between the
 * host runtime (src/) and a device plugin.  Device ids are the plugin's own
 * (local) ids, 0 .. number_of_devices()-1.  int32_t results are
 * OFFLOAD_SUCCESS / OFFLOAD_FAIL; pointer results are NULL on error. */
#ifndef OMPEMU_PLUGIN_H
#define OMPEMU_PLUGIN_H

#include <ompemu/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Required: a plugin lacking any of these ten is refused. */
int32_t __tgt_rtl_is_valid_binary(__tgt_device_image *image);
int32_t __tgt_rtl_number_of_devices(void);
int32_t __tgt_rtl_init_device(int32_t device_id);
/* The table must stay valid until the image is unregistered. */
__tgt_target_table *__tgt_rtl_load_binary(int32_t device_id,
                                          __tgt_device_image *image);
void *__tgt_rtl_data_alloc(int32_t device_id, int64_t size, void *host_ptr,
                           int32_t kind);
int32_t __tgt_rtl_data_submit(int32_t device_id, void *tgt_ptr, void *hst_ptr,
                              int64_t size);
int32_t __tgt_rtl_data_retrieve(int32_t device_id, void *hst_ptr,
                                void *tgt_ptr, int64_t size);
int32_t __tgt_rtl_data_delete(int32_t device_id, void *tgt_ptr);
int32_t __tgt_rtl_run_target_region(int32_t device_id, void *tgt_entry_ptr,
                                    void **tgt_args, ptrdiff_t *tgt_offsets,
                                    int32_t arg_num);
int32_t __tgt_rtl_run_target_team_region(int32_t device_id,
                                         void *tgt_entry_ptr, void **tgt_args,
                                         ptrdiff_t *tgt_offsets,
                                         int32_t arg_num, int32_t num_teams,
                                         int32_t thread_limit,
                                         uint64_t loop_tripcount);

/* Optional. */
int64_t __tgt_rtl_init_requires(int64_t requires_flags);
int32_t __tgt_rtl_data_submit_async(int32_t device_id, void *tgt_ptr,
                                    void *hst_ptr, int64_t size,
                                    __tgt_async_info *async_info);
int32_t __tgt_rtl_data_retrieve_async(int32_t device_id, void *hst_ptr,
                                      void *tgt_ptr, int64_t size,
                                      __tgt_async_info *async_info);
int32_t __tgt_rtl_run_target_region_async(int32_t device_id,
                                          void *tgt_entry_ptr, void **tgt_args,
                                          ptrdiff_t *tgt_offsets,
                                          int32_t arg_num,
                                          __tgt_async_info *async_info);
int32_t __tgt_rtl_run_target_team_region_async(
    int32_t device_id, void *tgt_entry_ptr, void **tgt_args,
    ptrdiff_t *tgt_offsets, int32_t arg_num, int32_t num_teams,
    int32_t thread_limit, uint64_t loop_tripcount,
    __tgt_async_info *async_info);
/* Waits for everything queued on ASYNC_INFO and sets its Queue to NULL. */
int32_t __tgt_rtl_synchronize(int32_t device_id, __tgt_async_info *async_info);
int32_t __tgt_rtl_is_data_exchangable(int32_t src_dev_id, int32_t dst_dev_id);
int32_t __tgt_rtl_data_exchange(int32_t src_dev_id, void *src_ptr,
                                int32_t dst_dev_id, void *dst_ptr,
                                int64_t size);
int32_t __tgt_rtl_data_exchange_async(int32_t src_dev_id, void *src_ptr,
                                      int32_t dst_dev_id, void *dst_ptr,
                                      int64_t size,
                                      __tgt_async_info *async_info);
int32_t __tgt_rtl_register_lib(__tgt_bin_desc *desc);
int32_t __tgt_rtl_unregister_lib(__tgt_bin_desc *desc);
int32_t __tgt_rtl_supports_empty_images(void);
void __tgt_rtl_set_info_flag(uint32_t info_level);
void __tgt_rtl_print_device_info(int32_t device_id);
int32_t __tgt_rtl_create_event(int32_t device_id, void **event);
int32_t __tgt_rtl_record_event(int32_t device_id, void *event,
                               __tgt_async_info *async_info);
int32_t __tgt_rtl_wait_event(int32_t device_id, void *event,
                             __tgt_async_info *async_info);
int32_t __tgt_rtl_sync_event(int32_t device_id, void *event);
int32_t __tgt_rtl_destroy_event(int32_t device_id, void *event);
int32_t __tgt_rtl_init_async_info(int32_t device_id,
                                  __tgt_async_info **async_info);
int32_t __tgt_rtl_release_async_info(int32_t device_id,
                                     __tgt_async_info *async_info);
int32_t __tgt_rtl_init_device_info(int32_t device_id,
                                   __tgt_device_info *device_info,
                                   const char **error_str);

/* Seed declare_target_indirect.md: register the sorted host->device table
 * of indirect functions (TABLE_SIZE rows at TABLE_HOST_PTR, host memory the
 * plugin copies).  ompemu returns OFFLOAD_SUCCESS/OFFLOAD_FAIL; the seed
 * declares it void, and a caller ignoring the result is compatible. */
int32_t __tgt_rtl_set_function_ptr_map(int32_t device_id, uint64_t table_size,
                                       __omp_offloading_fptr_map_ty *table_host_ptr);

#ifdef __cplusplus
}
#endif
#endif
