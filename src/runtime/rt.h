/* Internal interface of the host runtime (libomptarget.so): the objects
 * shared between registration, plugins, devices, mapping and target
 * execution, and the functions the two halves (core, data path) offer each
 * other.  Nothing here is exported: the version script exports only the
 * ABI, all of it defined in abi/ (doors.h is what those files call).
 *
 * Locks, in the order they may be taken:
 *   rt_state lock (state.c)  plugins list, libs list, device array,
 *                            requires flags, pending image infos; never
 *                            taken twice by one thread (it is not
 *                            recursive, and taking it again is reported)
 *   rt_device.lock           the device's state and loaded images
 *   entry index lock         the host-entry index (entry_index.c)
 *   rt_device.map_lock       the device's mapping table (mapping.h) */
#ifndef OMPEMU_RT_H
#define OMPEMU_RT_H

#include <ompemu/abi.h>
#include <ompemu/plugin.h>
#include <pthread.h>
#include <stdint.h>

#include "trace.h"
#include "biaslock.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))
/* Functions in the ABI (listed in libomptarget.map, defined in abi/). */
#define RT_EXPORT __attribute__((visibility("default")))

/* A loaded plugin library and its __tgt_rtl_* functions, one typed slot
 * per function of OMPEMU_RTL_FUNCTIONS (ompemu/plugin.h), named after it:
 * p->run_target_region is __tgt_rtl_run_target_region.  Optional ones may
 * be NULL. */
#define RT_PLUGIN_SLOT(fn) __typeof__(__tgt_rtl_##fn) *fn;
struct rt_plugin {
  char *name;  /* "emu", "x86_64", "cuda", ... */
  char *path;  /* what dlopen found */
  void *handle;
  int32_t num_devices;
  int32_t first_id; /* global id of its local device 0; -1 until in use */
  int used;         /* claimed an image, or __tgt_init_all_rtls */
  int order;        /* position in the plugin list (plugin_loader.c) */
  OMPEMU_RTL_FUNCTIONS(RT_PLUGIN_SLOT, RT_PLUGIN_SLOT)
  struct rt_plugin *next;
};
#undef RT_PLUGIN_SLOT

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

/* Life of a device: initialised once, on first use. */
enum rt_device_state {
  RT_DEVICE_NEW = 0, /* init_device not called yet */
  RT_DEVICE_READY,   /* init_device succeeded */
  RT_DEVICE_FAILED   /* init_device failed: every use fails */
};

/* One global device id. */
struct rt_device {
  int32_t id;       /* global */
  int32_t local_id; /* the plugin's */
  struct rt_plugin *plugin;
  pthread_mutex_t lock;
  enum rt_device_state state; /* written under lock, read atomically */
  struct rt_loaded *loaded;
  struct biaslock map_lock; /* biaslock.h */
  struct map_table *maps;
};

/* Process-wide state (state.c). */
struct rt_state {
  pthread_mutex_t lock;   /* through rt_state_lock / rt_state_unlock */
  int64_t requires_flags; /* OMP_REQ_*; OMP_REQ_UNDEFINED until set */
  struct rt_plugin *plugins; /* list order (OMPEMU_PLUGINS or default) */
  int plugins_loaded;
  struct rt_lib *libs;
  struct rt_device **devices; /* atomic: replaced when it grows */
  int32_t num_devices;  /* atomic: devices in use */
  uint32_t info_flags;  /* LIBOMPTARGET_INFO */
};
RT_HIDDEN extern struct rt_state rt_state;

/* state.c */
RT_HIDDEN void rt_state_lock(void);
RT_HIDDEN void rt_state_unlock(void);
/* Devices in use; the host is device number rt_num_devices(). */
RT_HIDDEN int32_t rt_num_devices(void);
/* `requires unified_shared_memory` is in force. */
RT_HIDDEN int rt_usm(void);

/* device.c */
RT_HIDDEN struct rt_device *rt_device_get(int64_t id); /* NULL if no such */
/* Device address of the kernel/global whose host address is HOST_PTR on D;
 * NULL if none.  NAME (optional) receives the entry name. */
RT_HIDDEN void *rt_device_entry(struct rt_device *d, void *host_ptr,
                                const char **name);

/* lifecycle.c: bring device D up: initialise it if needed, load the images
 * registered since its last use, run their ctors, send the fptr table.
 * 0 / -1 (nothing printed: callers say what failed in their words). */
RT_HIDDEN int rt_device_prepare(struct rt_device *d);
/* LLVM 14's checkDeviceAndCtors.  Resolves *DEVICE_ID (-1 = default).
 * Returns 0 to offload to *DEV, 1 for host fallback, -1 on failure.  It
 * prints "Device %ld is not ready." / "Failed to init globals on device
 * %ld" itself but does NOT apply the policy: on -1 the caller calls
 * rt_handle_outcome(OFFLOAD_FAIL, loc) and returns OFFLOAD_FAIL; on 1 it
 * returns OFFLOAD_FAIL (host fallback) silently. */
RT_HIDDEN int rt_check_device(int64_t *device_id, struct rt_device **dev);

/* policy.c */
/* Apply the offload policy to RC of a construct (mandatory: message and
 * abort on failure). */
RT_HIDDEN void rt_handle_outcome(int rc, ident_t *loc);
/* The same for the target region whose host entry is HOST_PTR: without a
 * source location, a flang region is named by its kernel's unit and line
 * ("line 9 of the main program"), and the hint to compile with -g, which
 * flang's locations never follow, is left out. */
RT_HIDDEN void rt_handle_target_outcome(int rc, ident_t *loc, void *host_ptr);
/* entries.c: the name of the registered host entry at HOST_PTR, or NULL. */
RT_HIDDEN const char *rt_host_entry_name(void *host_ptr);
RT_HIDDEN int rt_offload_policy(void); /* 0 disabled, 1 default, 2 mandatory */
/* Offloading is off (a "default" policy is resolved here: mandatory when a
 * device exists, else disabled). */
RT_HIDDEN int rt_is_offload_disabled(void);
RT_HIDDEN int rt_default_device(void);

/* devops.c: plugin call wrappers: device-local ids filled in, async used
 * where the plugin has it.  0 / -1; they print nothing (the plugin says
 * why, the caller says what failed). */
RT_HIDDEN void *rt_dev_alloc(struct rt_device *d, int64_t size, void *hst, int32_t kind);
RT_HIDDEN int rt_dev_free(struct rt_device *d, void *tgt);
RT_HIDDEN int rt_dev_submit(struct rt_device *d, void *tgt, const void *hst,
                            int64_t size, __tgt_async_info *async);
RT_HIDDEN int rt_dev_retrieve(struct rt_device *d, void *hst, const void *tgt,
                              int64_t size, __tgt_async_info *async);
RT_HIDDEN int rt_dev_sync(struct rt_device *d, __tgt_async_info *async);

/* mapping.c: permanent (INF) mapping of a declare-target global; skipped if
 * HST is already mapped.  0 / -1 (reported, naming the global). */
RT_HIDDEN int rt_map_global(struct rt_device *d, void *hst, size_t size,
                            void *tgt, const char *name);
/* Remove permanent mappings whose host range lies in [BEGIN, END) (called
 * when a library is unregistered). */
RT_HIDDEN void rt_unmap_globals(struct rt_device *d, const void *begin,
                                const void *end);
/* At exit: free the device copies the runtime allocated for what is still
 * mapped on D (a user-defined mapper's first component, data never
 * unmapped) and the table itself. */
RT_HIDDEN void rt_unmap_all(struct rt_device *d);

/* messages.c: LIBOMPTARGET_INFO bits and the "Libomptarget ..." messages,
 * all through ompemu_report (src/common/trace.h). */
enum { RT_INFO_KERNEL_ARGS = 0x01, RT_INFO_MAPPING_EXISTS = 0x02,
       RT_INFO_DUMP_TABLE = 0x04, RT_INFO_MAPPING_CHANGED = 0x08,
       RT_INFO_PLUGIN_KERNEL = 0x10, RT_INFO_DATA_TRANSFER = 0x20,
       RT_INFO_EMPTY_MAPPING = 0x40 };
/* Whether LIBOMPTARGET_INFO has BIT: inline, as the launch path asks
 * several times per map with the variable unset. */
static inline int rt_info(uint32_t bit) {
  return (rt_state.info_flags & bit) != 0;
}
RT_HIDDEN void rt_info_msg(int32_t device, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));          /* Libomptarget device N info: */
RT_HIDDEN void rt_message(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));          /* Libomptarget message: */
RT_HIDDEN void rt_err(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));          /* Libomptarget error: */
RT_HIDDEN void rt_fatal(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn)); /* fatal error N: + abort */
/* The same, the line starting with WHERE ("file:line:col: ") when not NULL. */
RT_HIDDEN void rt_fatal_at(const char *where, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* dump.c: DUMP_TABLE of D after the construct at LOC. */
RT_HIDDEN void rt_dump_table(struct rt_device *d, ident_t *loc);
/* ... of every device, when LIBOMPTARGET_INFO asks for it. */
RT_HIDDEN void rt_dump_tables(ident_t *loc);

/* Traces; ompemu's own diagnostics are ompemu_error("ompemu", ...) and
 * ompemu_warning("ompemu", ...). */
#define RT_TRACE(level, ...) ompemu_trace((level), "ompemu", __VA_ARGS__)

/* kernel_where.c: "line N of FUNC" from an offload entry NAME
 * ("__omp_offloading_DEV_FILEID_FUNC_lN") into BUF, or NULL when the name
 * carries no line; and a flang symbol as the source names it (_QMmEscale:
 * "scale", _QQmain: "the main program"). */
/* The line in an offload entry name ("..._l42": 42), 0 if none. */
RT_HIDDEN long rt_kernel_line(const char *name);
RT_HIDDEN const char *rt_kernel_where(const char *name, char *buf, size_t len);
/* The function (FUNC, as the symbol) of offload entry NAME into BUF, or
 * NULL when NAME has no "_l" part. */
RT_HIDDEN const char *rt_kernel_unit(const char *name, char *buf, size_t len);
RT_HIDDEN const char *check_source_name(const char *sym, char *buf,
                                        size_t len);

#endif
