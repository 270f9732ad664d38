/* What an offload entry is (rt_entry_kind), and the pairing of host entries
 * with a plugin's device table BY NAME (never by position): host entry i
 * gets the address of the device entry with the same name, or NULL.  LLVM 14's x86_64 plugin returns a table that is read
 * by position from the device image and, with `declare target link`, runs
 * one entry past the real ones, so every device entry is read defensively.
 * A name the table lacks (clang 14 emits no device entry for a link
 * variable's <var>_decl_tgt_ref_ptr) is looked up through the dynamic
 * linker when the device code lives in an object it knows. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"
#include "entry_table.h"
#include "safemem.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

const char *rt_host_entry_name(void *host_ptr) {
  struct rt_lib *l;
  int i;
  if (rt_index_find(host_ptr, &l, &i) != 0)
    return NULL;
  return l->host_begin[i].name;
}

const char *rt_entry_kind(const __tgt_offload_entry *e) {
  if (e->flags & RT_ENTRY_FLAG_VTABLE)
    return "vtable";
  if (e->flags & OMP_DECLARE_TARGET_FPTR)
    return "fptr";
  if (e->flags & OMP_DECLARE_TARGET_CTOR)
    return "ctor";
  if (e->flags & OMP_DECLARE_TARGET_DTOR)
    return "dtor";
  if (e->flags & OMP_DECLARE_TARGET_LINK)
    return "global link";
  return e->size ? "global to" : "kernel";
}

struct dev_row {
  const char *name; /* copied */
  void *addr;
};

static int row_cmp(const void *a, const void *b) {
  return strcmp(((const struct dev_row *)a)->name,
                ((const struct dev_row *)b)->name);
}

/* Device address of NAME through the dynamic linker, if the device code
 * around KNOWN (any device entry address) is an object ld.so loaded. */
static void *dl_lookup(void *known, const char *name) {
  Dl_info info;
  if (!known || !dladdr(known, &info) || !info.dli_fname)
    return NULL;
  void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (!h)
    return NULL;
  void *s = dlsym(h, name);
  Dl_info si;
  /* Accept only a definition inside that same object. */
  if (s && (!dladdr(s, &si) || si.dli_fbase != info.dli_fbase))
    s = NULL;
  dlclose(h);
  return s;
}

/* An indirect-function entry of clang 19 and 22 (size 8) names a device
 * pointer variable that holds the device function (docs/abi-clang22.md
 * 3.2); the seed's scheme names the device function itself (size 0).
 * Replace X->tgt[I] of host entry H by the function read from the device:
 * 0, or -1 when the variable cannot be read (reported). */
static int indirect_target(struct rt_device *d, struct rt_loaded *x, size_t i,
                           const __tgt_offload_entry *h) {
  void *var = x->tgt[i], *fn = NULL;
  if (!var || !(h->flags & OMP_DECLARE_TARGET_FPTR) ||
      (h->flags & RT_ENTRY_FLAG_VTABLE) || h->size != sizeof(void *))
    return 0;
  if (d->plugin->data_retrieve(d->local_id, &fn, var, sizeof fn) !=
      OFFLOAD_SUCCESS) {
    ompemu_error("ompemu", "device %d: cannot read the device pointer "
                 "variable %s at " OMPEMU_PTR " of indirect function "
                 OMPEMU_PTR, d->id, h->name ? h->name : "?", OMPEMU_P(var),
                 OMPEMU_P(h->addr));
    x->tgt[i] = NULL;
    return -1;
  }
  RT_TRACE(1, "  indirect     " OMPEMU_PTR " -> " OMPEMU_PTR "  (the device "
           "function %s's pointer variable " OMPEMU_PTR " holds)",
           OMPEMU_P(h->addr), OMPEMU_P(fn), h->name ? h->name : "?",
           OMPEMU_P(var));
  x->tgt[i] = fn;
  return 0;
}

int rt_pair_entries(struct rt_device *d, struct rt_loaded *x) {
  struct rt_lib *l = x->lib;
  __tgt_offload_entry *db = x->table->EntriesBegin, *de = x->table->EntriesEnd;
  size_t nd = db && de > db ? (size_t)(de - db) : 0;
  struct dev_row *rows = calloc(nd ? nd : 1, sizeof *rows);
  if (!rows) {
    ompemu_error("ompemu", "device %d: out of memory pairing the %zu device "
                 "entries of %s", d->id, nd, rt_lib_name(l));
    return -1;
  }
  size_t k = 0;
  char buf[1024];
  void *known = NULL;
  for (size_t i = 0; i < nd; i++) {
    __tgt_offload_entry e;
    if (rt_safe_copy(&e, db + i, sizeof e) != (ssize_t)sizeof e ||
        rt_safe_string(e.name, buf, sizeof buf) != 0) {
      RT_TRACE(1, "device %d: device entry %zu at " OMPEMU_PTR " of %s is not "
               "a valid entry (table longer than the image's): ignored",
               d->id, i, OMPEMU_P(db + i), rt_lib_name(l));
      continue;
    }
    rows[k].name = strdup(buf);
    rows[k].addr = e.addr;
    if (!rows[k].name) {
      ompemu_error("ompemu", "device %d: out of memory pairing the device "
                   "entries of %s", d->id, rt_lib_name(l));
      for (size_t j = 0; j < k; j++)
        free((char *)rows[j].name);
      free(rows);
      return -1;
    }
    if (!known && e.addr)
      known = e.addr;
    k++;
  }
  qsort(rows, k, sizeof *rows, row_cmp);
  for (__tgt_offload_entry *h = l->host_begin; h < l->host_end; h++) {
    size_t i = (size_t)(h - l->host_begin);
    const char *how = "";
    struct dev_row key = {h->name ? h->name : "", NULL};
    struct dev_row *m = h->name ? bsearch(&key, rows, k, sizeof *rows, row_cmp)
                                : NULL;
    if (m && m->addr) {
      x->tgt[i] = m->addr;
    } else if (h->name && (x->tgt[i] = dl_lookup(known, h->name))) {
      how = " (by symbol lookup)";
    }
    if (x->tgt[i])
      RT_TRACE(1, "  %-12s " OMPEMU_PTR " -> " OMPEMU_PTR "  %s%s",
               rt_entry_kind(h), OMPEMU_P(h->addr), OMPEMU_P(x->tgt[i]),
               h->name ? h->name : "(null)", how);
    else
      RT_TRACE(1, "  %-12s " OMPEMU_PTR " -> (none: the device image has no "
               "entry of that name)  %s", rt_entry_kind(h), OMPEMU_P(h->addr),
               h->name ? h->name : "(null)");
  }
  for (size_t i = 0; i < k; i++)
    free((char *)rows[i].name);
  free(rows);
  int rc = 0;
  for (__tgt_offload_entry *h = l->host_begin; h < l->host_end; h++)
    if (indirect_target(d, x, (size_t)(h - l->host_begin), h) != 0)
      rc = -1;
  return rc;
}
