/* The per-device mapping table (see mapping.h): map entries found through
 * their B+ tree index (map_index.c), the LLVM 14 lookup classification, reference
 * counts, shadow pointers, and, for the core, the permanent mappings of
 * declare-target globals (rt_map_global / rt_unmap_globals) and the table's
 * end at exit (rt_unmap_all). */
#include "config.h"
#include "mapping.h"
#include "observe.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct map_table *map_table_of(struct rt_device *d) {
  if (!d->maps) {
    struct map_table *t = calloc(1, sizeof *t);
    if (t && pthread_cond_init(&t->released, NULL)) {
      free(t);
      t = NULL;
    }
    d->maps = t;
  }
  return d->maps;
}

static int free_entry_lists(void *v, void *arg) {
  struct map_entry *e = v;
  (void)arg;
  free(e->shadows);
  free(e->refs);
  return 0;
}

void map_table_destroy(struct map_table *t) {
  if (!t)
    return;
  map_index_foreach(&t->index, free_entry_lists, NULL);
  map_index_clear(&t->index);
  free(t->spare_shadows);
  free(t->spare_refs);
  block_pool_release(&t->entries, sizeof(struct map_entry));
  pthread_cond_destroy(&t->released);
  free(t);
}

/* Least entry with begin > HP. */
static struct map_entry *upper_entry(struct map_table *t, uintptr_t hp) {
  return map_index_above(&t->index, hp);
}

struct map_entry *map_first_from(struct map_table *t, uintptr_t hp) {
  return map_index_ceil(&t->index, hp);
}

void map_lookup(struct map_table *t, uintptr_t hp, int64_t size,
                struct map_lookup *out) {
  /* Worked out in locals and stored once: flags stored one by one and
   * then read back two at a time (as GCC merges the tests) made a failed
   * store forward, 9 % of a launch of one pointer section. */
  struct map_lookup r = {0};
  if (t && t->count) {
    uintptr_t end = hp + (uintptr_t)size;
    void *lv, *rv;
    map_index_around(&t->index, hp, &lv, &rv);
    struct map_entry *left = lv, *right = rv;
    if (left) {
      r.entry = left;
      r.contained = hp >= left->hst_begin && hp < left->hst_end &&
                    end <= left->hst_end;
      r.extends_after = hp < left->hst_end && end > left->hst_end;
    }
    if (!r.contained && !r.extends_after && right) {
      r.entry = right;
      r.extends_before = hp < right->hst_begin && end > right->hst_begin;
      r.extends_after = hp < right->hst_end && end > right->hst_end;
    }
    if (!r.contained && !r.extends_before && !r.extends_after)
      r.entry = NULL;
  }
  *out = r;
}

struct map_entry *map_find(struct map_table *t, uintptr_t hp) {
  struct map_lookup lr;
  map_lookup(t, hp, 0, &lr);
  return lr.contained ? lr.entry : NULL;
}

struct map_entry *map_find_by_base(struct map_table *t, uintptr_t hp) {
  if (!t || !t->count)
    return NULL;
  void *lv, *rv;
  map_index_around(&t->index, hp, &lv, &rv);
  struct map_entry *left = lv, *right = rv;
  if (left && hp >= left->hst_end && hp < left->hst_base)
    return left;
  if (right && hp >= right->hst_base)
    return right;
  return NULL;
}

void map_wait(struct map_table *t, struct biaslock *lock, unsigned long mark) {
  biaslock_mutex(lock);
  /* Against map_release_unlocked: each side stores, then loads what the
   * other stores (sequentially consistent), so either this thread sees the
   * release counted or the releaser sees it waiting, and then broadcasts
   * under the lock, which this thread holds until it sleeps. */
  atomic_fetch_add(&t->waiters, 1);
  if (atomic_load(&t->unlocked_releases) == mark)
    pthread_cond_wait(&t->released, &lock->mutex);
  atomic_fetch_sub(&t->waiters, 1);
}

void map_release_unlocked(struct map_table *t, struct biaslock *lock,
                          struct map_entry *e) {
  __atomic_store_n(&e->busy, 0, __ATOMIC_RELEASE);
  atomic_fetch_add(&t->unlocked_releases, 1);
  if (atomic_load(&t->waiters)) {
    biaslock_lock(lock);
    pthread_cond_broadcast(&t->released);
    biaslock_unlock(lock);
  }
}

void map_lookup_wait(struct map_table *t, struct biaslock *lock,
                     uintptr_t hp, int64_t size, struct map_lookup *out) {
  for (;;) {
    unsigned long mark = map_wait_mark(t);
    map_lookup(t, hp, size, out);
    if (!out->entry || !map_busy(out->entry))
      return;
    map_wait(t, lock, mark);
  }
}



struct map_entry *map_insert(struct map_table *t, uintptr_t base,
                             uintptr_t begin, uintptr_t end, uintptr_t tgt,
                             const char *name, uint64_t dyn, uint64_t hold,
                             int kind) {
  /* Aligned (block_pool.h), so that the fields of a lookup share one cache
   * line. */
  void *mem = block_pool_get(&t->entries, sizeof(struct map_entry));
  if (!mem)
    return NULL;
  struct map_entry *e = memset(mem, 0, sizeof *e);
  e->hst_base = base;
  e->hst_begin = begin;
  e->hst_end = end;
  e->tgt_begin = tgt;
  e->name = name;
  e->dyn_ref = dyn;
  e->hold_ref = hold;
  e->kind = kind;
  if (map_index_insert(&t->index, begin, e)) {
    block_pool_put(&t->entries, e, sizeof(struct map_entry));
    return NULL;
  }
  t->count++;
  return e;
}

void map_remove(struct map_table *t, struct map_entry *e) {
  map_shadow_erase_run(t, e, 0, e->nshadows);
  /* Holders of pointers into E keep their shadows (they are detected as
   * stale later); only the links to E go. */
  map_index_remove(&t->index, e->hst_begin);
  t->count--;
  if (e->shadows && !t->spare_shadows) {
    t->spare_shadows = e->shadows;
    t->spare_shadows_cap = e->cap_shadows;
  } else {
    free(e->shadows);
  }
  if (e->refs && !t->spare_refs) {
    t->spare_refs = e->refs;
    t->spare_refs_cap = e->cap_refs;
  } else {
    free(e->refs);
  }
  if (map_busy(e))
    map_release(t, e);
  block_pool_put(&t->entries, e, sizeof(struct map_entry));
}

struct walk {
  int (*fn)(struct map_entry *, void *);
  void *arg;
};

static int walk_one(void *e, void *arg) {
  struct walk *w = arg;
  return w->fn(e, w->arg);
}

void map_foreach(struct map_table *t, int (*fn)(struct map_entry *, void *),
                 void *arg) {
  /* FN may not remove entries; callers that remove collect first. */
  struct walk w = {fn, arg};
  if (t)
    map_index_foreach(&t->index, walk_one, &w);
}

/* ---- reference counts ---- */

const char *map_ref_str(uint64_t ref, char *buf) {
  if (ref == MAP_REF_INF)
    return "INF";
  snprintf(buf, 24, "%lu", (unsigned long)ref);
  return buf;
}

/* ---- shadow pointers ---- */

int map_shadow_lower(const struct map_entry *e, uintptr_t hst_addr) {
  int lo = 0, hi = e->nshadows;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (e->shadows[mid].hst_addr < hst_addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

struct map_shadow *map_shadow_find(struct map_entry *e, uintptr_t hst_addr) {
  int i = map_shadow_lower(e, hst_addr);
  return i < e->nshadows && e->shadows[i].hst_addr == hst_addr
             ? &e->shadows[i]
             : NULL;
}

struct map_shadow *map_shadow_add(struct map_table *t, struct map_entry *e,
                                  uintptr_t hst_addr) {
  int i = map_shadow_lower(e, hst_addr);
  if (i < e->nshadows && e->shadows[i].hst_addr == hst_addr)
    return &e->shadows[i];
  if (!e->shadows && t->spare_shadows) {
    e->shadows = t->spare_shadows;
    e->cap_shadows = t->spare_shadows_cap;
    t->spare_shadows = NULL;
  }
  if (e->nshadows == e->cap_shadows) {
    int cap = e->cap_shadows ? 2 * e->cap_shadows : 4;
    struct map_shadow *n = realloc(e->shadows, (size_t)cap * sizeof *n);
    if (!n)
      return NULL;
    e->shadows = n;
    e->cap_shadows = cap;
  }
  /* In address order: most come in order (a struct's members, an array of
   * them), so this is an append. */
  memmove(&e->shadows[i + 1], &e->shadows[i],
          (size_t)(e->nshadows - i) * sizeof *e->shadows);
  e->nshadows++;
  struct map_shadow *s = &e->shadows[i];
  memset(s, 0, sizeof *s);
  s->hst_addr = hst_addr;
  return s;
}

void map_shadow_erase_run(struct map_table *t, struct map_entry *e, int i,
                          int n) {
  if (n <= 0)
    return;
  for (int k = i; k < i + n; k++) {
    struct map_shadow *s = &e->shadows[k];
    struct map_entry *pe = s->hst_obj ? map_find(t, s->hst_obj) : NULL;
    if (pe)
      map_backref_drop(pe, e, s->hst_addr);
  }
  memmove(&e->shadows[i], &e->shadows[i + n],
          (size_t)(e->nshadows - i - n) * sizeof *e->shadows);
  e->nshadows -= n;
}

void map_shadow_erase(struct map_table *t, struct map_entry *e, int i) {
  map_shadow_erase_run(t, e, i, 1);
}

int map_backref_add(struct map_table *t, struct map_entry *pe,
                    struct map_entry *holder, uintptr_t hst_addr) {
  for (int i = 0; i < pe->nrefs; i++)
    if (pe->refs[i].holder == holder && pe->refs[i].hst_addr == hst_addr)
      return 0;
  if (!pe->refs && t->spare_refs) {
    pe->refs = t->spare_refs;
    pe->cap_refs = t->spare_refs_cap;
    t->spare_refs = NULL;
  }
  if (pe->nrefs == pe->cap_refs) {
    int cap = pe->cap_refs ? 2 * pe->cap_refs : 2;
    struct map_backref *n = realloc(pe->refs, (size_t)cap * sizeof *n);
    if (!n)
      return -1;
    pe->refs = n;
    pe->cap_refs = cap;
  }
  pe->refs[pe->nrefs++] = (struct map_backref){holder, hst_addr};
  return 0;
}

void map_backref_drop(struct map_entry *pe, struct map_entry *holder,
                      uintptr_t hst_addr) {
  for (int i = 0; i < pe->nrefs; i++)
    if (pe->refs[i].holder == holder && pe->refs[i].hst_addr == hst_addr) {
      pe->refs[i] = pe->refs[--pe->nrefs];
      return;
    }
}

/* ---- declare-target globals (called by the core) ---- */

int rt_map_global(struct rt_device *d, void *hst, size_t size, void *tgt,
                  const char *name) {
  int rc = 0;
  biaslock_lock(&d->map_lock);
  struct map_table *t = map_table_of(d);
  struct map_lookup lr;
  if (!t) {
    rc = -1;
  } else {
    map_lookup(t, (uintptr_t)hst, (int64_t)size, &lr);
    if (lr.entry) {
      RT_TRACE(2, "device %d: global %s at " OMPEMU_PTR " already mapped",
               d->id, name ? name : "?", OMPEMU_P(hst));
    } else if (!map_insert(t, (uintptr_t)hst, (uintptr_t)hst,
                           (uintptr_t)hst + size, (uintptr_t)tgt, name,
                           MAP_REF_INF, 0, MAP_KIND_GLOBAL)) {
      rc = -1;
    } else {
      OBS_MAP(d, OBS_MAP_NEW, hst, tgt, (int64_t)size, name, MAP_REF_INF, 0, 0);
      RT_TRACE(1, "device %d: map global %s host [" OMPEMU_PTR ", " OMPEMU_PTR
               ") -> device " OMPEMU_PTR " (%zu bytes, refcount INF)",
               d->id, name ? name : "?", OMPEMU_P(hst),
               OMPEMU_P((char *)hst + size), OMPEMU_P(tgt), size);
    }
  }
  biaslock_unlock(&d->map_lock);
  if (rc)
    ompemu_error("ompemu", "device %d: cannot map global %s at " OMPEMU_PTR
                 ": out of memory", d->id, name ? name : "?", OMPEMU_P(hst));
  return rc;
}

void rt_unmap_globals(struct rt_device *d, const void *begin,
                      const void *end) {
  biaslock_lock(&d->map_lock);
  struct map_table *t = d->maps;
  struct map_entry *e = t ? map_first_from(t, (uintptr_t)begin) : NULL;
  unsigned long mark = t ? map_wait_mark(t) : 0;
  while (e && e->hst_begin < (uintptr_t)end) {
    if (map_busy(e)) {
      uintptr_t at = e->hst_begin;
      map_wait(t, &d->map_lock, mark);
      mark = map_wait_mark(t);
      e = map_first_from(t, at);
      continue;
    }
    /* Entries stay where they are when others come and go: NEXT stays
     * valid. */
    struct map_entry *next = upper_entry(t, e->hst_begin);
    if (e->kind == MAP_KIND_GLOBAL && e->hst_end <= (uintptr_t)end) {
      RT_TRACE(2, "device %d: unmap global host " OMPEMU_PTR, d->id,
               OMPEMU_P(e->hst_begin));
      map_remove(t, e);
    }
    e = next;
  }
  biaslock_unlock(&d->map_lock);
}

/* ---- the whole table at exit (called by the core) ---- */

static int free_device_copy(struct map_entry *e, void *arg) {
  struct rt_device *d = arg;
  if (e->kind == MAP_KIND_MAPPED && rt_dev_free(d, (void *)e->tgt_begin))
    RT_TRACE(1, "device %d: at exit, device copy " OMPEMU_PTR " of host "
             OMPEMU_PTR " could not be freed", d->id, OMPEMU_P(e->tgt_begin),
             OMPEMU_P(e->hst_begin));
  return 0;
}

void rt_unmap_all(struct rt_device *d) {
  biaslock_lock(&d->map_lock);
  struct map_table *t = d->maps;
  if (t && t->count)
    RT_TRACE(1, "device %d: at exit, %zu mappings left: their device copies "
             "are freed", d->id, t->count);
  if (t && d->state == RT_DEVICE_READY)
    map_foreach(t, free_device_copy, d);
  map_table_destroy(t);
  d->maps = NULL;
  biaslock_unlock(&d->map_lock);
}
