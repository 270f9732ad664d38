/* Private interface between the files of the runtime core: state, the
 * host-entry index, plugins, devices, entries, globals, the fptr table,
 * registration and the lifecycle.  The data path sees only rt.h.
 *
 * The files form layers; each calls only the ones below it
 * (tests/unit/call_cycles.sh checks that no two call each other):
 *   lifecycle.c   registration as the doors see it, device bring-up, exit
 *   registry.c    libraries and images, which plugin claims which image
 *   device.c      device objects, init, image loading, unloading
 *   globals.c fptr_table.c plugin_loader.c policy.c
 *   entries.c entry_index.c
 *   state.c messages.c (and the data path's dump.c, mapping.c, devops.c)
 * The entry index lock is a rwlock; a device's loaded list is changed under
 * rt_device.lock and the index write lock, so launches read it under the
 * index read lock alone.  A device's mapping lock (mapping.c) is taken
 * inside rt_device.lock by rt_map_global/rt_unmap_globals, never the other
 * way round. */
#ifndef OMPEMU_CORE_H
#define OMPEMU_CORE_H

#include "doors.h"
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

/* descriptor.c: a descriptor as the runtime and the plugins walk it,
 * whatever compiler made it: images unwrapped to their device code, entry
 * tables in the 32-byte layout, the requires entry taken out. */
struct rt_desc_view {
  __tgt_bin_desc desc;          /* what the plugins are given */
  __tgt_device_image *images;   /* desc.DeviceImages */
  __tgt_offload_entry *entries; /* the host table (NULL when empty) */
  size_t nentries;
  __tgt_offload_entry **owned;  /* per image: its own table, if not the host's */
  char **arch;                  /* per image: the container's arch, or NULL */
  int *from;                    /* per image: its index in the descriptor
                                   (unreadable images are left out) */
  int nimages;
  int64_t requires;             /* the requires entry's bits, or
                                   OMP_REQ_UNDEFINED when there is none */
};
/* Fill *V from DESC (LABEL names it in messages).  0, or -1 when out of
 * memory (reported).  A malformed image or table is reported and left
 * as it is (image) or empty (table); an unreadable image is reported and
 * left out, an entry with an unreadable name too. */
RT_HIDDEN int rt_desc_view_make(const __tgt_bin_desc *desc, const char *label,
                                struct rt_desc_view *v);
RT_HIDDEN void rt_desc_view_free(struct rt_desc_view *v);

/* A registered library as the core keeps it. */
struct rt_lib_core {
  struct rt_lib pub;
  char *name; /* the object that holds the descriptor (dladdr), for traces */
  struct rt_desc_view view; /* pub.images and pub.host_* point into it */
};
static inline const char *rt_lib_name(const struct rt_lib *l) {
  return ((const struct rt_lib_core *)l)->name;
}
/* The descriptor the plugins are given for L (its view). */
static inline __tgt_bin_desc *rt_lib_plugin_desc(struct rt_lib *l) {
  return &((struct rt_lib_core *)l)->view.desc;
}

/* global_sizes.c: warn about declare-target variables whose size in a
 * claimed image of L differs from their host entry's (at registration). */
RT_HIDDEN void rt_check_global_sizes(const struct rt_lib *l);

/* state.c: bumped on every (un)registration, so devices see new images. */
RT_HIDDEN extern _Atomic unsigned rt_libs_gen;

/* entry_index.c: the process-wide index host entry address -> (library,
 * entry index) over every registered library. */
/* Rebuild it from rt_state.libs (caller holds the state lock).  0 / -1
 * (out of memory: reported, the index is then empty). */
RT_HIDDEN int rt_index_rebuild(void);
RT_HIDDEN void rt_index_free(void);
/* Find the library and index of the host entry whose addr is HOST_PTR.
 * 0 found / -1. */
RT_HIDDEN int rt_index_find(void *host_ptr, struct rt_lib **lib, int *idx);
RT_HIDDEN int rt_index_find_locked(void *host_ptr, struct rt_lib **lib,
                                   int *idx);
RT_HIDDEN int rt_index_in_vtable(uintptr_t x);
RT_HIDDEN void rt_index_rdlock(void);
RT_HIDDEN void rt_index_wrlock(void);
RT_HIDDEN void rt_index_unlock(void);

/* plugin_loader.c (under the state lock) */
/* Load the plugins once (OMPEMU_PLUGINS or the default list) into
 * rt_state.plugins and size rt_state.devices for all their devices. */
RT_HIDDEN void rt_load_plugins_locked(void);
/* The exit status of a program none of whose device images can run
 * (registry.c), as ompemu-run's for a program it refuses. */
#define RT_EXIT_UNRUNNABLE 125

/* Load one plugin by name or path; NULL if unusable, with the reason in
 * WHY (WHYLEN bytes) and a trace note. */
RT_HIDDEN struct rt_plugin *rt_plugin_open(const char *spec, int own_dir_only,
                                           char *why, size_t whylen);
/* Forget plugin P (at exit; the library stays loaded). */
RT_HIDDEN void rt_plugin_free(struct rt_plugin *p);
/* Whether a plugin of the default list that serves KIND ("nvidia", "amd";
 * NULL: any) is still to be probed. */
RT_HIDDEN int rt_plugins_deferred(const char *kind);
/* Probe those plugins now: each usable one joins rt_state.plugins in list
 * order, with room for its devices (not yet in use) and the libraries
 * registered so far.  Returns how many joined. */
RT_HIDDEN int rt_plugins_probe(const char *kind);
/* Whether a plugin that serves KIND (NULL: any; one of unknown kind serves
 * any) loaded with no device: 1 with WHY = "plugin NAME has no device" and
 * the setting that made it so, if known. */
RT_HIDDEN int rt_plugin_without_device(const char *kind, char *why,
                                       size_t len);
/* At exit: free the device array (and the ones it replaced). */
RT_HIDDEN void rt_devices_free(void);
/* Device kind a plugin serves or an arch names: "host", "nvidia", "amd"
 * or NULL when unknown. */
RT_HIDDEN const char *rt_plugin_kind(const struct rt_plugin *p);
RT_HIDDEN const char *rt_arch_kind(const char *arch);

/* device.c */
RT_HIDDEN struct rt_device *rt_device_new(struct rt_plugin *p, int32_t id,
                                          int32_t local_id);
/* Free D and everything it holds (at exit, nothing loaded on it). */
RT_HIDDEN void rt_device_destroy(struct rt_device *d);
/* init_requires + init_device once.  0 ready (*FRESH set when this call
 * initialised it), -1 failed (now or before). */
RT_HIDDEN int rt_device_init(struct rt_device *d, int *fresh);
/* Load the images registered since the last call.  0 / -1. */
RT_HIDDEN int rt_device_load_pending(struct rt_device *d);
/* Run LIB's dtors on D, drop its mappings and tables, resend fptr table. */
RT_HIDDEN void rt_device_unload_lib(struct rt_device *d, struct rt_lib *lib);

/* entries.c: pair host entries with the plugin's table by name. */
RT_HIDDEN int rt_pair_entries(struct rt_device *d, struct rt_loaded *l);
/* "kernel", "global to", "global link", "ctor", "dtor" or "fptr". */
RT_HIDDEN const char *rt_entry_kind(const __tgt_offload_entry *e);

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

/* registry.c: each takes the state lock itself (and see doors.h). */
/* Register DESC (loading the plugins first if nobody did).  1 when this
 * call loaded the plugins, else 0. */
RT_HIDDEN int rt_registry_add(__tgt_bin_desc *desc);
/* Load the plugins if nobody did and give every one its devices (1 when
 * this call loaded them, else 0). */
RT_HIDDEN int rt_registry_use_all_plugins(void);
/* At process exit: unregister every library (reverse registration order,
 * plugins still alive), then free devices, plugins and the index; later
 * registrations are ignored. */
RT_HIDDEN void rt_registry_shutdown(void);

#endif
