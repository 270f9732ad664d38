/* The per-device mapping table: host range -> device range, with dynamic
 * and hold reference counts and the shadow pointers of attached pointers.
 * Entries never overlap; they are found through a B+ tree keyed by
 * HstPtrBegin (map_index.h), so every lookup, insertion and removal is
 * O(log n) and touches few cache lines.  Every function here expects the
 * caller to hold the device's map_lock (rt_device.map_lock), which
 * protects the index, every entry and every entry's shadow list.
 *
 * The lock is not held across a plugin call that moves or allocates an
 * entry's data: the thread doing that marks the entry busy first, drops
 * the lock, calls the plugin, takes the lock again and releases the entry
 * (map_release).  A new entry is inserted busy, with no device address
 * yet, before its allocation and first copy.  Anyone else who finds a busy
 * entry waits (map_wait) and looks again, so nobody sees a half-filled
 * entry, copies into an entry another thread is copying, or removes one;
 * threads mapping other entries do not wait.  A new entry, once filled,
 * is released without the lock (map_release_unlocked: one lock round trip
 * less per new mapping, the one that contended most with 8 threads on 2
 * cores); a waiter reads the table's count of such releases before it
 * looks at the entry, so it never sleeps through one (map_wait). */
#ifndef OMPEMU_MAPPING_H
#define OMPEMU_MAPPING_H

#include "map_index.h"
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

/* What a lookup needs comes first: one cache line. */
struct map_entry {
  uintptr_t hst_begin, hst_end, tgt_begin;
  uint64_t dyn_ref, hold_ref; /* MAP_REF_INF = permanent */
  int kind;                   /* enum map_entry_kind */
  int nshadows;
  int nrefs;
  int busy; /* a thread is filling or copying it without the lock (read
             * with map_busy: it may be cleared without the lock) */
  const char *name; /* map_var_info string (";expr;file;line;col;;"), a
                     * declare-target global's entry name, or NULL */
  /* The first cache line of an entry (the pool aligns them) ends here: a
   * target update and a data end read nothing past it. */
  uintptr_t hst_base;
  uint64_t born; /* stamp of the construct that allocated it (rt_op),
                 * 0 if that construct attaches nothing */
  struct map_shadow *shadows;
  struct map_backref *refs; /* pointers attached to this entry */
  int cap_shadows, cap_refs;
};

struct map_table {
  struct map_index index; /* hst_begin -> entry */
  size_t count;
  struct block_pool entries; /* where entries live (freed with the table) */
  pthread_cond_t released; /* a busy entry was released */
  _Atomic int waiters;     /* threads in map_wait */
  _Atomic unsigned long unlocked_releases; /* map_release_unlocked calls */
  /* The shadow and back-reference arrays of the last removed entries that
   * had them, for the next ones (a launch attaching a struct's member
   * creates and removes both every time); NULL: none. */
  struct map_shadow *spare_shadows;
  struct map_backref *spare_refs;
  int spare_shadows_cap, spare_refs_cap;
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
/* For a pointer HP that no entry holds (a zero-length section, a pointer
 * captured implicitly or in use_device_ptr): the neighbouring entry of a
 * section of HP's array, whose base pointer lies at or below HP and whose
 * section begins above it (or the reverse), as LLVM 19 looks such
 * pointers up (LLVM 14 did not: "pointer initialization for device data
 * environments");
 * NULL if none.  The device address of HP is then tgt_begin + (HP -
 * hst_begin). */
struct map_entry *map_find_by_base(struct map_table *t, uintptr_t hp);
/* Whether E is busy; once it is not, what its filler wrote is visible. */
static inline int map_busy(const struct map_entry *e) {
  return __atomic_load_n(&e->busy, __ATOMIC_ACQUIRE);
}
/* Before looking for busy entries: the count map_wait is given. */
static inline unsigned long map_wait_mark(struct map_table *t) {
  return atomic_load(&t->unlocked_releases);
}
/* Wait (LOCK, the device's map_lock, held) until a busy entry of T is
 * released; entries found before may be gone: look them up again.  MARK
 * is map_wait_mark's value from before the caller found the entry busy:
 * an entry released without the lock since then ends the wait at once.
 * LOCK is held by its mutex from then on (biaslock_mutex). */
void map_wait(struct map_table *t, struct biaslock *lock, unsigned long mark);
/* map_lookup that waits while the entry it finds is busy. */
void map_lookup_wait(struct map_table *t, struct biaslock *lock,
                     uintptr_t hp, int64_t size, struct map_lookup *out);
static inline void map_lookup_ready(struct map_table *t, struct biaslock *lock,
                                    uintptr_t hp, int64_t size,
                                    struct map_lookup *out) {
  map_lookup(t, hp, size, out);
  if (out->entry && map_busy(out->entry))
    map_lookup_wait(t, lock, hp, size, out);
}
/* E is no longer busy: wake the waiters (caller holds the map lock). */
static inline void map_release(struct map_table *t, struct map_entry *e) {
  __atomic_store_n(&e->busy, 0, __ATOMIC_RELEASE);
  if (atomic_load_explicit(&t->waiters, memory_order_relaxed))
    pthread_cond_broadcast(&t->released);
}
/* The same without the map lock (LOCK is the device's), by the thread
 * that made E busy: only E's own fields may have been written. */
void map_release_unlocked(struct map_table *t, struct biaslock *lock,
                          struct map_entry *e);
/* Allocate and insert a new entry; NULL on out-of-memory. */
struct map_entry *map_insert(struct map_table *t, uintptr_t base,
                             uintptr_t begin, uintptr_t end, uintptr_t tgt,
                             const char *name, uint64_t dyn, uint64_t hold,
                             int kind);
/* Unlink E from T and free it (not its device memory); its shadows'
 * back-references in their pointees go too.  Waiters are woken when E
 * was busy. */
void map_remove(struct map_table *t, struct map_entry *e);
/* Call FN on each entry in host address order; FN returns non-zero to
 * stop. */
void map_foreach(struct map_table *t, int (*fn)(struct map_entry *, void *),
                 void *arg);
/* First entry whose begin is >= HP, or NULL. */
struct map_entry *map_first_from(struct map_table *t, uintptr_t hp);

/* Reference counts, as LLVM 14's HostDataToTargetTy. */
static inline uint64_t map_total_ref(const struct map_entry *e) {
  if (e->dyn_ref == MAP_REF_INF || e->hold_ref == MAP_REF_INF)
    return MAP_REF_INF;
  return e->dyn_ref + e->hold_ref;
}

static inline void map_inc_ref(struct map_entry *e, int hold) {
  uint64_t *r = hold ? &e->hold_ref : &e->dyn_ref;
  if (*r != MAP_REF_INF)
    ++*r;
}

static inline uint64_t map_dec_ref(struct map_entry *e, int hold) {
  uint64_t *r = hold ? &e->hold_ref : &e->dyn_ref;
  if (*r != MAP_REF_INF && *r > 0)
    --*r;
  return map_total_ref(e);
}

static inline void map_reset_ref(struct map_entry *e, int hold) {
  uint64_t *r = hold ? &e->hold_ref : &e->dyn_ref;
  if (*r != MAP_REF_INF)
    *r = 1;
}

/* Whether the decrement (or, AFTER_RESET, the reset) of E's HOLD or
 * dynamic count leaves it with none. */
static inline int map_dec_should_remove(const struct map_entry *e, int hold,
                                        int after_reset) {
  uint64_t mine = hold ? e->hold_ref : e->dyn_ref;
  uint64_t other = hold ? e->dyn_ref : e->hold_ref;
  if (other > 0)
    return 0;
  if (after_reset)
    return mine != MAP_REF_INF;
  return mine == 1;
}
/* "INF" or the decimal count, into BUF (>= 24 bytes). */
const char *map_ref_str(uint64_t ref, char *buf);

/* Shadow pointers of E, kept in order of their host address (an entry of
 * an array of structs holds thousands): the index of the first at or
 * above HST_ADDR; the one at HST_ADDR, or NULL; that one, added when
 * missing (NULL only when out of memory). */
int map_shadow_lower(const struct map_entry *e, uintptr_t hst_addr);
struct map_shadow *map_shadow_find(struct map_entry *e, uintptr_t hst_addr);
struct map_shadow *map_shadow_add(struct map_table *t, struct map_entry *e,
                                  uintptr_t hst_addr);
/* Forget shadows I .. I+N-1 of E (and their back-references in their
 * pointees); shadow I alone. */
void map_shadow_erase_run(struct map_table *t, struct map_entry *e, int i,
                          int n);
void map_shadow_erase(struct map_table *t, struct map_entry *e, int i);
/* Record that the pointer at HST_ADDR in HOLDER points into PE.  0/-1. */
int map_backref_add(struct map_table *t, struct map_entry *pe,
                    struct map_entry *holder, uintptr_t hst_addr);
void map_backref_drop(struct map_entry *pe, struct map_entry *holder,
                      uintptr_t hst_addr);

#endif
