/* The __tgt_rtl_* plugin interface of LLVM 14 (docs/abi-clang14.md
 * section 8) plus __tgt_rtl_set_function_ptr_map
 * (docs/indirect-functions.md): the only contract between the host runtime
 * (src/runtime/) and a device plugin.  Device ids are the plugin's own
 * (local) ids, 0 .. number_of_devices()-1.  int32_t results are
 * OFFLOAD_SUCCESS / OFFLOAD_FAIL; pointer results are NULL on error.
 *
 * Each function is declared once below, and named once in
 * OMPEMU_RTL_FUNCTIONS: the runtime's plugin table and its dlsym lookups
 * are generated from that list, with types taken from these declarations,
 * so a plugin function whose definition, table slot or call disagrees with
 * its declaration does not compile. */
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

/* docs/indirect-functions.md: register the sorted host->device table
 * of indirect functions (TABLE_SIZE rows at TABLE_HOST_PTR, host memory the
 * plugin copies).  ompemu returns OFFLOAD_SUCCESS/OFFLOAD_FAIL; that page
 * declares it void, and a caller ignoring the result is compatible. */
int32_t __tgt_rtl_set_function_ptr_map(int32_t device_id, uint64_t table_size,
                                       __omp_offloading_fptr_map_ty *table_host_ptr);

/* ompemu's own (docs/design.md, "Observation points"): WHAT 0 stops, a
 * set of OMPEMU_OBSERVE_* bits (src/common/devevent.h) starts the
 * plugin's device events, each passed to the runtime's ompemu_event_sink
 * with TAG.  OFFLOAD_SUCCESS when the plugin will send them. */
int32_t __tgt_rtl_ompemu_observe(uint32_t what, void *tag);

/* ompemu's extensions, implemented by the emu plugin (docs/design.md,
 * "The emu plugin's extensions").
 * ompemu_host_alias: an address in the device's reserved alias range that
 *   stands for HOST_PTR: device code that dereferences it (or any address
 *   within 8 MiB of it) faults, and the fault is reported as "kernel K
 *   dereferenced host pointer HOST_PTR (DESCRIPTION) + offset".  The same
 *   HOST_PTR and DESCRIPTION give the same alias.  NULL when none is left.
 * ompemu_poisoned_bytes: in *COUNT, how many bytes of [TGT_PTR,
 *   TGT_PTR+SIZE), which must lie in one live block, still hold the
 *   device's poison (bytes no copy or kernel wrote).
 * ompemu_watch_unwritten: ON 1: until the next kernel on the device has
 *   returned, device code's first read of [TGT_PTR, TGT_PTR+SIZE) (one live
 *   block, all of it poison) on a page nothing has written yet is recorded;
 *   ON 2: the same for the bytes of a global of an image loaded on the
 *   device, on pages other data shares: the first read by device code
 *   before any write of them is recorded, whatever else touches the pages;
 *   ON 3: the same for bytes of the data range on a live block's pages
 *   (the slack before a block's start), given up (no read) after 20 000
 *   accesses to the page;
 *   ON 0: the watch ends, and *FIRST_READ is the offset of that read, or
 *   -1 when there was none.  Check mode only.
 * ompemu_not_device: 0 when [TGT_PTR, TGT_PTR+SIZE) is memory the device's
 *   copies accept (inside one live block, or one loaded image's globals);
 *   2 when TGT_PTR is inside a live block but the range runs past its
 *   end, with WHY saying so ("the copy of N bytes at offset K runs M bytes
 *   past the end of the allocation [...) of L bytes"); else 1 with WHY (a
 *   string of WHY_LEN bytes) saying what it is instead ("it lies outside
 *   device N's data range [...)").  Prints nothing: the runtime names the API
 *   call.  -1 for a device it does not have.
 * ompemu_note_pointers: check mode: SRC non-NULL: the device addresses
 *   among the 8-byte words of [SRC, SRC+SIZE), bytes just copied to the
 *   device at LO (0: not known where), are noted (a block one of them
 *   points into is made inaccessible before the first kernel after it is
 *   freed, when device memory there still holds its address).  SRC NULL:
 *   from now on the caller makes that call after every copy to the
 *   device, for all the bytes except a part it found holds no word W with
 *   W - LO < SPAN (unsigned), and the plugin stops scanning the copies
 *   itself; OFFLOAD_FAIL (it goes on scanning) when not every device
 *   address of DEVICE_ID lies in [LO, LO+SPAN).
 * ompemu_runtime: the runtime says, once, before it initialises any
 *   device, what it guarantees: TRAITS, a set of OMPEMU_RT_* bits.
 *   OMPEMU_RT_DETACHES: a pointer attached in device memory is detached
 *   when its pointee is unmapped, so nothing depends on a re-allocated
 *   block getting another address than the one freed: the plugin may hand
 *   freed device memory out again at once.  A plugin loaded by another
 *   runtime (LLVM's) is never told, and keeps whatever delay it has. */
#define OMPEMU_RT_DETACHES 0x1u
void *__tgt_rtl_ompemu_host_alias(int32_t device_id, void *host_ptr,
                                  const char *description);
int32_t __tgt_rtl_ompemu_poisoned_bytes(int32_t device_id, void *tgt_ptr,
                                        int64_t size, int64_t *count);
int32_t __tgt_rtl_ompemu_watch_unwritten(int32_t device_id, void *tgt_ptr,
                                         int64_t size, int32_t on,
                                         int64_t *first_read);
int32_t __tgt_rtl_ompemu_not_device(int32_t device_id, const void *tgt_ptr,
                                    int64_t size, char *why, int64_t why_len);
int32_t __tgt_rtl_ompemu_note_pointers(int32_t device_id, const void *src,
                                       int64_t size, uint64_t lo,
                                       uint64_t span);
int32_t __tgt_rtl_ompemu_runtime(uint32_t traits);

/* Every function above, by the name after "__tgt_rtl_", in the order the
 * runtime looks them up: REQUIRED(name) for the ten a plugin must define
 * (a plugin lacking one is refused), OPTIONAL(name) for the rest (missing:
 * that feature is off).  Use: #define the two macros, expand the list. */
#define OMPEMU_RTL_FUNCTIONS(REQUIRED, OPTIONAL)                            \
  REQUIRED(is_valid_binary)                                                 \
  REQUIRED(number_of_devices)                                               \
  REQUIRED(init_device)                                                     \
  REQUIRED(load_binary)                                                     \
  REQUIRED(data_alloc)                                                      \
  REQUIRED(data_submit)                                                     \
  REQUIRED(data_retrieve)                                                   \
  REQUIRED(data_delete)                                                     \
  REQUIRED(run_target_region)                                               \
  REQUIRED(run_target_team_region)                                          \
  OPTIONAL(init_requires)                                                   \
  OPTIONAL(data_submit_async)                                               \
  OPTIONAL(data_retrieve_async)                                             \
  OPTIONAL(run_target_region_async)                                         \
  OPTIONAL(run_target_team_region_async)                                    \
  OPTIONAL(synchronize)                                                     \
  OPTIONAL(is_data_exchangable)                                             \
  OPTIONAL(data_exchange)                                                   \
  OPTIONAL(data_exchange_async)                                             \
  OPTIONAL(register_lib)                                                    \
  OPTIONAL(unregister_lib)                                                  \
  OPTIONAL(supports_empty_images)                                           \
  OPTIONAL(set_info_flag)                                                   \
  OPTIONAL(print_device_info)                                               \
  OPTIONAL(create_event)                                                    \
  OPTIONAL(record_event)                                                    \
  OPTIONAL(wait_event)                                                      \
  OPTIONAL(sync_event)                                                      \
  OPTIONAL(destroy_event)                                                   \
  OPTIONAL(init_async_info)                                                 \
  OPTIONAL(release_async_info)                                              \
  OPTIONAL(init_device_info)                                                \
  OPTIONAL(set_function_ptr_map)                                            \
  OPTIONAL(ompemu_observe)                                                  \
  OPTIONAL(ompemu_host_alias)                                               \
  OPTIONAL(ompemu_poisoned_bytes)                                           \
  OPTIONAL(ompemu_watch_unwritten)                                          \
  OPTIONAL(ompemu_not_device)                                               \
  OPTIONAL(ompemu_note_pointers)                                            \
  OPTIONAL(ompemu_runtime)

#ifdef __cplusplus
}
#endif
#endif
