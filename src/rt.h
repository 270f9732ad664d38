/* Internal interface of the host runtime (libomptarget.so): the objects
 * shared between registration, plugins, devices, mapping and target
 * execution.  Nothing here is exported (the version script exports only
 * the ABI).  Locks:
 *   rt_state.lock     plugins list, libs list, device array, requires flags
 *   rt_device.lock    device state and its loaded tables (init/load/unload)
 *   rt_device.map_lock the device's mapping table (mapping.c)
 */
#ifndef OMPEMU_RT_H
#define OMPEMU_RT_H

#include <ompemu/abi.h>
#include <ompemu/plugin.h>
#include <pthread.h>
#include <stdint.h>

#define RT_HIDDEN __attribute__((visibility("hidden")))
/* Functions in the ABI (listed in libomptarget.map) are defined with this. */
#define RT_EXPORT __attribute__((visibility("default")))

/* A loaded plugin library and its __tgt_rtl_* functions (optional ones may
 * be NULL). */
struct rt_plugin {
  char *name;  /* "emu", "x86_64", "cuda", ... */
  char *path;  /* what dlopen found */
  void *handle;
  int32_t num_devices;
  int32_t first_id; /* global id of its local device 0; -1 until in use */
  int used;         /* claimed an image, or __tgt_init_all_rtls */
  int32_t (*is_valid_binary)(__tgt_device_image *);
  int32_t (*number_of_devices)(void);
  int32_t (*init_device)(int32_t);
  __tgt_target_table *(*load_binary)(int32_t, __tgt_device_image *);
  void *(*data_alloc)(int32_t, int64_t, void *, int32_t);
  int32_t (*data_submit)(int32_t, void *, void *, int64_t);
  int32_t (*data_retrieve)(int32_t, void *, void *, int64_t);
  int32_t (*data_delete)(int32_t, void *);
  int32_t (*run_region)(int32_t, void *, void **, ptrdiff_t *, int32_t);
  int32_t (*run_team_region)(int32_t, void *, void **, ptrdiff_t *, int32_t,
                             int32_t, int32_t, uint64_t);
  int64_t (*init_requires)(int64_t);
  int32_t (*data_submit_async)(int32_t, void *, void *, int64_t, __tgt_async_info *);
  int32_t (*data_retrieve_async)(int32_t, void *, void *, int64_t, __tgt_async_info *);
  int32_t (*run_region_async)(int32_t, void *, void **, ptrdiff_t *, int32_t,
                              __tgt_async_info *);
  int32_t (*run_team_region_async)(int32_t, void *, void **, ptrdiff_t *,
                                   int32_t, int32_t, int32_t, uint64_t,
                                   __tgt_async_info *);
  int32_t (*synchronize)(int32_t, __tgt_async_info *);
  int32_t (*is_data_exchangable)(int32_t, int32_t);
  int32_t (*data_exchange)(int32_t, void *, int32_t, void *, int64_t);
  int32_t (*data_exchange_async)(int32_t, void *, int32_t, void *, int64_t,
                                 __tgt_async_info *);
  int32_t (*register_lib)(__tgt_bin_desc *);
  int32_t (*unregister_lib)(__tgt_bin_desc *);
  int32_t (*supports_empty_images)(void);
  void (*set_info_flag)(uint32_t);
  void (*print_device_info)(int32_t);
  int32_t (*create_event)(int32_t, void **);
  int32_t (*record_event)(int32_t, void *, __tgt_async_info *);
  int32_t (*wait_event)(int32_t, void *, __tgt_async_info *);
  int32_t (*sync_event)(int32_t, void *);
  int32_t (*destroy_event)(int32_t, void *);
  int32_t (*set_function_ptr_map)(int32_t, uint64_t, __omp_offloading_fptr_map_ty *);
  struct rt_plugin *next;
};

struct rt_lib;

/* One device image of a registered library. */
struct rt_image {
  struct rt_lib *lib;
  int index;                 /* in the descriptor */
  __tgt_device_image *image;
  const char *arch;          /* from __tgt_register_image_info, or NULL */
  struct rt_plugin *plugin;  /* the plugin that claimed it, or NULL */
};

/* A registered __tgt_bin_desc (an executable or a shared library). */
struct rt_lib {
  __tgt_bin_desc *desc;
  int nimages;
  struct rt_image *images;
  __tgt_offload_entry *host_begin, *host_end;
  struct rt_lib *next; /* registration order */
};

/* One library's image loaded on one device: host entry i is paired BY NAME
 * with device address tgt[i] (NULL when the device has no such symbol). */
struct rt_loaded {
  struct rt_lib *lib;
  struct rt_image *image;
  __tgt_target_table *table; /* as returned by load_binary */
  void **tgt;                /* one per host entry */
  int ctors_done;
  struct rt_loaded *next;
};

struct map_table; /* mapping.h */

/* One global device id. */
struct rt_device {
  int32_t id;       /* global */
  int32_t local_id; /* the plugin's */
  struct rt_plugin *plugin;
  pthread_mutex_t lock;
  int state;        /* 0 not initialised, 1 ready, -1 init failed */
  struct rt_loaded *loaded;
  pthread_mutex_t map_lock;
  struct map_table *maps;
};

/* Process-wide state (registry.c). */
struct rt_state {
  pthread_mutex_t lock;
  int64_t requires_flags; /* OMP_REQ_*; OMP_REQ_UNDEFINED until set */
  struct rt_plugin *plugins; /* load order */
  int plugins_loaded;
  struct rt_lib *libs;
  struct rt_device **devices;
  int32_t num_devices;
  uint32_t info_flags;  /* LIBOMPTARGET_INFO */
};
RT_HIDDEN extern struct rt_state rt_state;

/* plugins.c: load the plugins once (OMPEMU_PLUGINS or the default list). */
RT_HIDDEN void rt_load_plugins(void);

/* device.c */
RT_HIDDEN struct rt_device *rt_device_get(int64_t id); /* NULL if no such */
/* Initialise D if needed and load its pending images, run ctors, send the
 * fptr table.  0 on success. */
RT_HIDDEN int rt_device_prepare(struct rt_device *d);
/* Device address of the kernel/global whose host address is HOST_PTR on D;
 * NULL if none.  NAME (optional) receives the entry name. */
RT_HIDDEN void *rt_device_entry(struct rt_device *d, void *host_ptr,
                                const char **name);

/* policy.c: checkDeviceAndCtors.  Resolves *DEVICE_ID (-1 = default).
 * Returns 0 to offload to *DEV, 1 for host fallback, -1 on failure.  It
 * prints "Device %ld is not ready." / "Failed to init globals on device
 * %ld" itself but does NOT apply the policy: on -1 the caller calls
 * rt_handle_outcome(OFFLOAD_FAIL, loc) and returns OFFLOAD_FAIL; on 1 it
 * returns OFFLOAD_FAIL (host fallback) silently. */
RT_HIDDEN int rt_check_device(int64_t *device_id, struct rt_device **dev);
/* Apply the offload policy to RC of a construct (mandatory: message and
 * abort on failure). */
RT_HIDDEN void rt_handle_outcome(int rc, ident_t *loc);
RT_HIDDEN int rt_offload_policy(void); /* 0 disabled, 1 default, 2 mandatory */

/* Plugin call wrappers: device-local ids filled in, async used where the
 * plugin has it.  0 / -1. */
RT_HIDDEN void *rt_dev_alloc(struct rt_device *d, int64_t size, void *hst, int32_t kind);
RT_HIDDEN int rt_dev_free(struct rt_device *d, void *tgt);
RT_HIDDEN int rt_dev_submit(struct rt_device *d, void *tgt, const void *hst,
                            int64_t size, __tgt_async_info *async);
RT_HIDDEN int rt_dev_retrieve(struct rt_device *d, void *hst, const void *tgt,
                              int64_t size, __tgt_async_info *async);
RT_HIDDEN int rt_dev_sync(struct rt_device *d, __tgt_async_info *async);

/* mapping.c: permanent (INF) mapping of a declare-target global; skipped if
 * HST is already mapped.  0 / -1. */
RT_HIDDEN int rt_map_global(struct rt_device *d, void *hst, size_t size,
                            void *tgt, const char *name);
/* Remove permanent mappings whose host range lies in [BEGIN, END) (called
 * when a library is unregistered). */
RT_HIDDEN void rt_unmap_globals(struct rt_device *d, const void *begin,
                                const void *end);

/* info.c: LIBOMPTARGET_INFO bits and the "Libomptarget ..." messages. */
enum { RT_INFO_KERNEL_ARGS = 0x01, RT_INFO_MAPPING_EXISTS = 0x02,
       RT_INFO_DUMP_TABLE = 0x04, RT_INFO_MAPPING_CHANGED = 0x08,
       RT_INFO_PLUGIN_KERNEL = 0x10, RT_INFO_DATA_TRANSFER = 0x20 };
RT_HIDDEN int rt_info(uint32_t bit);
RT_HIDDEN void rt_info_msg(int32_t device, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));          /* Libomptarget device N info: */
RT_HIDDEN void rt_message(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));          /* Libomptarget message: */
RT_HIDDEN void rt_err(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));          /* Libomptarget error: */
RT_HIDDEN void rt_fatal(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn)); /* fatal error N: + abort */
/* DUMP_TABLE of D after the construct at LOC. */
RT_HIDDEN void rt_dump_table(struct rt_device *d, ident_t *loc);

#define RT_TRACE(level, ...) ompemu_trace((level), "ompemu", __VA_ARGS__)

#endif
