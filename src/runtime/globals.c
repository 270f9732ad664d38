/* Declare-target globals of a loaded image: permanent mappings for `to`
 * globals, `link` reference-pointer slots and indirect functions, and the
 * C++ constructors / destructors of declare-target globals (CTOR entries
 * at load in entry order, DTOR entries at unregister in reverse order, only
 * where the constructors ran).  Called under the device's lock. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"
#include "entry_table.h"

#include <string.h>

/* Under unified shared memory clang 19 and 22 turn every declare target
 * variable into a reference pointer <var>_decl_tgt_ref_ptr that the device
 * code reads the host variable through (docs/abi-clang16-19.md 4): is H
 * such a pointer, in a process that requires unified shared memory? */
static int usm_ref_ptr(const __tgt_offload_entry *h) {
  static const char sfx[] = "_decl_tgt_ref_ptr";
  size_t n = h->name ? strlen(h->name) : 0;
  return h->size == sizeof(void *) && n > sizeof sfx - 1 &&
         !strcmp(h->name + n - (sizeof sfx - 1), sfx) && rt_usm();
}

/* Point the device copy TGT of reference pointer H at the host variable
 * (the value the host's pointer holds), as LLVM's runtime does when the
 * image is loaded.  0 / -1 (reported). */
static int usm_ref_ptr_init(struct rt_device *d, const __tgt_offload_entry *h,
                            void *tgt) {
  RT_TRACE(1, "device %d: unified shared memory: %s = " OMPEMU_PTR " (the "
           "host variable)", d->id, h->name, OMPEMU_P(*(void **)h->addr));
  if (d->plugin->data_submit(d->local_id, tgt, h->addr, sizeof(void *)) ==
      OFFLOAD_SUCCESS)
    return 0;
  ompemu_error("ompemu", "device %d: cannot write reference pointer %s at "
               OMPEMU_PTR, d->id, h->name, OMPEMU_P(tgt));
  return -1;
}

int rt_globals_map(struct rt_device *d, struct rt_loaded *x) {
  struct rt_lib *l = x->lib;
  int rc = 0;
  for (__tgt_offload_entry *h = l->host_begin; h < l->host_end; h++) {
    void *tgt = x->tgt[h - l->host_begin];
    size_t size;
    if (h->flags & (OMP_DECLARE_TARGET_CTOR | OMP_DECLARE_TARGET_DTOR |
                    RT_ENTRY_FLAG_VTABLE))
      continue; /* functions; a vtable's device symbol is a pointer */
    if (h->flags & OMP_DECLARE_TARGET_FPTR)
      size = 1; /* a function address, mappable as plain data */
    else if (h->size)
      size = h->size; /* `to` global, or the `link` ref-pointer slot */
    else
      continue; /* kernel */
    if (!tgt) {
      if (!(h->flags & OMP_DECLARE_TARGET_FPTR))
        RT_TRACE(1, "device %d: global %s (" OMPEMU_PTR ", %zu bytes) has no "
                 "device copy: not mapped", d->id, h->name ? h->name : "?",
                 OMPEMU_P(h->addr), h->size);
      continue;
    }
    /* rt_map_global names the global; the caller prints LLVM's line. */
    if (rt_map_global(d, h->addr, size, tgt, h->name) != 0)
      rc = -1;
    else if (usm_ref_ptr(h) && usm_ref_ptr_init(d, h, tgt) != 0)
      rc = -1;
  }
  return rc;
}

void rt_globals_unmap(struct rt_device *d, struct rt_loaded *x) {
  struct rt_lib *l = x->lib;
  for (__tgt_offload_entry *h = l->host_begin; h < l->host_end; h++) {
    if (!x->tgt[h - l->host_begin] ||
        (h->flags & (OMP_DECLARE_TARGET_CTOR | OMP_DECLARE_TARGET_DTOR |
                     RT_ENTRY_FLAG_VTABLE)))
      continue;
    size_t size = (h->flags & OMP_DECLARE_TARGET_FPTR) ? 1 : h->size;
    if (size)
      rt_unmap_globals(d, h->addr, (char *)h->addr + size);
  }
}

/* Run the device function of host entry H as a 0-argument kernel: 0, -1
 * when the plugin failed to run it (the plugin says why), 1 when the
 * device image has no such function. */
static int run0(struct rt_device *d, struct rt_loaded *x,
                __tgt_offload_entry *h) {
  void *tgt = x->tgt[h - x->lib->host_begin];
  if (!tgt)
    return 1;
  RT_TRACE(1, "device %d: running %s %s at " OMPEMU_PTR, d->id,
           rt_entry_kind(h), h->name ? h->name : "?", OMPEMU_P(tgt));
  return d->plugin->run_target_region(d->local_id, tgt, NULL, NULL, 0) ==
                 OFFLOAD_SUCCESS ? 0 : -1;
}

static void no_function(struct rt_device *d, __tgt_offload_entry *h) {
  ompemu_error("ompemu", "device %d: %s %s (host " OMPEMU_PTR ") has no "
               "device function", d->id, rt_entry_kind(h),
               h->name ? h->name : "?", OMPEMU_P(h->addr));
}

int rt_run_ctors(struct rt_device *d, struct rt_loaded *x) {
  struct rt_lib *l = x->lib;
  int rc = 0;
  for (__tgt_offload_entry *h = l->host_begin; h < l->host_end; h++) {
    if (!(h->flags & OMP_DECLARE_TARGET_CTOR))
      continue;
    int r = run0(d, x, h);
    if (r > 0)
      no_function(d, h);
    if (r) {
      rt_err("Running ctor " OMPEMU_PTR " failed.", OMPEMU_P(h->addr));
      rc = -1;
    }
  }
  x->ctors_done = 1;
  return rc;
}

void rt_run_dtors(struct rt_device *d, struct rt_loaded *x) {
  struct rt_lib *l = x->lib;
  if (!x->ctors_done)
    return;
  /* Backwards by index: a library without entries has NULL bounds. */
  for (size_t i = (size_t)(l->host_end - l->host_begin); i-- > 0;) {
    __tgt_offload_entry *h = &l->host_begin[i];
    if (!(h->flags & OMP_DECLARE_TARGET_DTOR))
      continue;
    int r = run0(d, x, h);
    if (r > 0)
      no_function(d, h);
    else if (r < 0)
      ompemu_error("ompemu", "device %d: running dtor " OMPEMU_PTR " (%s) "
                   "failed", d->id, OMPEMU_P(h->addr), h->name ? h->name : "?");
  }
  x->ctors_done = 0;
}
