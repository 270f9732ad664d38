/* The per-device mapping table: host range -> device range, with dynamic
 * and hold reference counts and the shadow pointers of attached pointers.
 * An AVL tree keyed by HstPtrBegin (entries never overlap), so every lookup
 * is O(log n).  Every function here expects the caller to hold the device's
 * map_lock (rt_device.map_lock), which protects the tree, every entry and
 * every entry's shadow list. */
#ifndef OMPEMU_MAPPING_H
#define OMPEMU_MAPPING_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

#define MAP_REF_INF UINT64_MAX

/* An attached pointer: the host pointer at HST_ADDR (inside the entry that
 * holds it) has host value HST_VAL; its device copy at TGT_ADDR was
 * overwritten with TGT_VAL. */
struct map_shadow {
  uintptr_t hst_addr;
  uintptr_t hst_val;
  uintptr_t tgt_addr;
  uintptr_t tgt_val;
  uintptr_t hst_obj, tgt_obj; /* the pointee's host begin and device copy;
                                 0 once detached (pointee unmapped) */
  uintptr_t tgt_old; /* device value to put back when the pointee goes */
};

/* "The host pointer at HST_ADDR inside HOLDER is attached to me": kept in
 * the pointee's entry so that its removal can detach the pointer. */
struct map_backref {
  struct map_entry *holder;
  uintptr_t hst_addr;
};

enum map_entry_kind {
  MAP_KIND_MAPPED = 0, /* allocated by the runtime; freed on removal */
  MAP_KIND_GLOBAL = 1, /* declare-target global: INF, device memory not ours */
  MAP_KIND_ASSOC = 2   /* omp_target_associate_ptr: INF, not ours */
};

struct map_entry {
  uintptr_t hst_base, hst_begin, hst_end, tgt_begin;
  const char *name; /* map_var_info string (";expr;file;line;col;;") or NULL */
  uint64_t dyn_ref, hold_ref; /* MAP_REF_INF = permanent */
  int kind;                   /* enum map_entry_kind */
  struct map_shadow *shadows;
  int nshadows, cap_shadows;
  struct map_backref *refs; /* pointers attached to this entry */
  int nrefs, cap_refs;
  /* AVL links */
  struct map_entry *left, *right;
  int height;
};

struct map_table {
  struct map_entry *root;
  size_t count;
};

/* Result of a lookup of [HP, HP+SIZE), classified as LLVM 14 does. */
struct map_lookup {
  struct map_entry *entry; /* the entry the flags refer to, or NULL */
  int contained;      /* wholly inside entry (size 0: begin inside it) */
  int extends_before; /* starts before entry and reaches into it */
  int extends_after;  /* starts inside entry and runs past its end */
};

/* The table of D, created on first use (caller holds D->map_lock); NULL
 * only when out of memory. */
struct map_table *map_table_of(struct rt_device *d);
void map_table_destroy(struct map_table *t);

void map_lookup(struct map_table *t, uintptr_t hp, int64_t size,
                struct map_lookup *out);
/* The entry containing HP (size-0 lookup), or NULL. */
struct map_entry *map_find(struct map_table *t, uintptr_t hp);
/* Allocate and insert a new entry; NULL on out-of-memory. */
struct map_entry *map_insert(struct map_table *t, uintptr_t base,
                             uintptr_t begin, uintptr_t end, uintptr_t tgt,
                             const char *name, uint64_t dyn, uint64_t hold,
                             int kind);
/* Unlink E from T and free it (not its device memory); its shadows'
 * back-references in their pointees go too. */
void map_remove(struct map_table *t, struct map_entry *e);
/* Call FN on each entry in host address order; FN returns non-zero to
 * stop. */
void map_foreach(struct map_table *t, int (*fn)(struct map_entry *, void *),
                 void *arg);
/* First entry whose begin is >= HP, or NULL. */
struct map_entry *map_first_from(struct map_table *t, uintptr_t hp);

/* Reference counts, as LLVM 14's HostDataToTargetTy. */
uint64_t map_total_ref(const struct map_entry *e);
void map_inc_ref(struct map_entry *e, int hold);
uint64_t map_dec_ref(struct map_entry *e, int hold);
void map_reset_ref(struct map_entry *e, int hold);
int map_dec_should_remove(const struct map_entry *e, int hold, int after_reset);
/* "INF" or the decimal count, into BUF (>= 24 bytes). */
const char *map_ref_str(uint64_t ref, char *buf);

/* Shadow pointers of E. */
struct map_shadow *map_shadow_find(struct map_entry *e, uintptr_t hst_addr);
struct map_shadow *map_shadow_add(struct map_entry *e, uintptr_t hst_addr);
/* Forget shadow I of E (and its back-reference in its pointee). */
void map_shadow_erase(struct map_table *t, struct map_entry *e, int i);
/* Record that the pointer at HST_ADDR in HOLDER points into PE.  0/-1. */
int map_backref_add(struct map_entry *pe, struct map_entry *holder,
                    uintptr_t hst_addr);
void map_backref_drop(struct map_entry *pe, struct map_entry *holder,
                      uintptr_t hst_addr);

#endif
