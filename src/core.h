/* Private interface between the files of the runtime core (registry,
 * plugins, devices, entries, globals, fptr table, policy, exports).  The
 * data path sees only src/rt.h.
 *
 * Locks, in the order they may be taken:
 *   rt_state.lock (recursive)  plugins list, libs list, device array growth,
 *                              pending image infos
 *   rt_device.lock             the device's loaded images, ctors, fptr table
 *   rt_index_lock (rwlock)     the host-entry index (registry.c), and the
 *                              links of every device's loaded list (changed
 *                              under both locks, so launches read it under
 *                              the rwlock alone)
 * A device's mapping lock (mapping.c) is taken inside rt_device.lock by
 * rt_map_global/rt_unmap_globals, never the other way round. */
#ifndef OMPEMU_CORE_H
#define OMPEMU_CORE_H

#include "rt.h"
#include "trace.h"

#include <stdatomic.h>

/* Everything of a device only the core needs; rt_device is its first
 * member so rt_device pointers convert back (core_of). */
struct rt_device_core {
  struct rt_device pub;
  unsigned synced_gen;  /* registry generation last loaded (atomic) */
  __omp_offloading_fptr_map_ty *fptr; /* the table last sent */
  size_t nfptr;
  int fptr_sent;        /* a table (possibly empty) was sent */
};
static inline struct rt_device_core *core_of(struct rt_device *d) {
  return (struct rt_device_core *)d;
}

/* A registered library as the core keeps it. */
struct rt_lib_core {
  struct rt_lib pub;
  char *name; /* the object that holds the descriptor (dladdr), for traces */
};
static inline const char *rt_lib_name(const struct rt_lib *l) {
  return ((const struct rt_lib_core *)l)->name;
}

/* registry.c */
RT_HIDDEN extern _Atomic unsigned rt_libs_gen;   /* bumped on (un)register */
/* Find the library and index of the host entry whose addr is HOST_PTR.
 * 0 found / -1. */
RT_HIDDEN int rt_index_find(void *host_ptr, struct rt_lib **lib, int *idx);
RT_HIDDEN int rt_index_find_locked(void *host_ptr, struct rt_lib **lib,
                                   int *idx);
RT_HIDDEN void rt_index_rdlock(void);
RT_HIDDEN void rt_index_wrlock(void);
RT_HIDDEN void rt_index_unlock(void);
/* Make plugin P usable: assign its global device ids (under rt_state.lock). */
RT_HIDDEN int rt_plugin_use(struct rt_plugin *p);
/* Register our exit handler (again) so it runs before plugins' own. */
RT_HIDDEN void rt_arm_exit_handler(void);
RT_HIDDEN const char *rt_entry_kind(const __tgt_offload_entry *e);

/* plugins.c */
/* Load one plugin by name or path; NULL (with a trace note) if unusable. */
RT_HIDDEN struct rt_plugin *rt_plugin_open(const char *spec, int own_dir_only);
/* Device kind a plugin serves or an arch names: "host", "nvidia", "amd"
 * or NULL when unknown. */
RT_HIDDEN const char *rt_plugin_kind(const struct rt_plugin *p);
RT_HIDDEN const char *rt_arch_kind(const char *arch);

/* device.c */
RT_HIDDEN struct rt_device *rt_device_new(struct rt_plugin *p, int32_t id,
                                          int32_t local_id);
/* init_requires + init_device once.  0 / -1. */
RT_HIDDEN int rt_device_init(struct rt_device *d);
/* Load the images registered since the last call.  0 / -1. */
RT_HIDDEN int rt_device_load_pending(struct rt_device *d);
/* Run LIB's dtors on D, drop its mappings and tables, resend fptr table. */
RT_HIDDEN void rt_device_unload_lib(struct rt_device *d, struct rt_lib *lib);

/* entries.c: pair host entries with the plugin's table by name. */
RT_HIDDEN int rt_pair_entries(struct rt_device *d, struct rt_loaded *l);

/* globals.c */
RT_HIDDEN int rt_globals_map(struct rt_device *d, struct rt_loaded *l);
RT_HIDDEN void rt_globals_unmap(struct rt_device *d, struct rt_loaded *l);
RT_HIDDEN int rt_run_ctors(struct rt_device *d, struct rt_loaded *l);
RT_HIDDEN void rt_run_dtors(struct rt_device *d, struct rt_loaded *l);

/* fptr_table.c: rebuild D's indirect-function table from everything loaded
 * on it and send it to the plugin.  0 / -1 (conflicting entries). */
RT_HIDDEN int rt_fptr_update(struct rt_device *d);
/* Sort and check ROWS (NAMES/LIBS parallel, may be NULL), dropping exact
 * duplicates; returns the new count or -1 on a conflict (reported). */
RT_HIDDEN long rt_fptr_sort(__omp_offloading_fptr_map_ty *rows,
                            const char **names, const char **libs, size_t n);

/* policy.c */
RT_HIDDEN int rt_default_device(void);

#define CORE_ERR(...) ompemu_error("ompemu", __VA_ARGS__)

#endif
