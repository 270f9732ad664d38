/* Check mode: lazy protection of freed blocks (see arena.h, ARENA_CHECK).
 * A freed block's pages stay read-write and populated (the UNPROT treap)
 * until a kernel is about to run (arena_settle), so that freeing costs no
 * system call and an allocation that lands on them needs none either.
 * Before a kernel every page that is not part of a live block's body is
 * PROT_NONE again: arena_unprot_flush protects the whole set, adjacent
 * ranges in one mprotect.  Only device code can read freed device memory
 * without a check (copies are checked against the live blocks), so a
 * freed read still faults in every run; what a kernel already running on
 * another thread reads of a block freed under it is not caught (a race in
 * the program, as for the lazy poison).  Callers hold the arena's lock. */
#include "config.h"
#include "arena_internal.h"
#include "trace.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

static void protect(struct emu_arena *a, uintptr_t p, size_t len) {
  if (len && mprotect((void *)p, len, PROT_NONE) != 0)
    ompemu_error("emu", "device %d: check: cannot make the freed %s range ["
                 OMPEMU_PTR ", " OMPEMU_PTR ") inaccessible: %s", a->dev,
                 a->what, OMPEMU_P(p), OMPEMU_P(p + len), strerror(errno));
}

void arena_unprot_add(struct emu_arena *a, uintptr_t p, size_t len,
                      int clean) {
  struct anode *s = apool_get(&a->pool);
  if (!s) { /* no memory to remember it: protect now */
    protect(a, p, len);
    return;
  }
  s->key = p;
  s->len = len;
  s->flags = clean ? ANODE_CLEAN : 0;
  atree_insert(&a->unprot, s);
  a->nunprot++;
  atomic_store_explicit(&a->owed, 1, memory_order_relaxed);
  if (a->nunprot > EMU_CHECK_UNPROT_MAX)
    arena_unprot_flush(a);
}

/* Insert [P, P+LEN) with FLAGS reusing node S if given; protect it
 * without memory. */
static void reinsert(struct emu_arena *a, struct anode *s, uintptr_t p,
                     size_t len, unsigned flags) {
  if (!s)
    s = apool_get(&a->pool);
  if (!s) {
    protect(a, p, len);
    return;
  }
  memset(s, 0, sizeof *s);
  s->key = p;
  s->len = len;
  s->flags = flags;
  atree_insert(&a->unprot, s);
  a->nunprot++;
}

size_t arena_unprot_cut(struct emu_arena *a, uintptr_t p, size_t len,
                        size_t body, size_t *clean, int *guard_rw) {
  uintptr_t e = p + len, be = p + body;
  size_t covered = 0;
  *clean = 0;
  *guard_rw = 0;
  struct anode *s = atree_floor(a->unprot, p);
  if (!s || s->key + s->len <= p)
    s = atree_ceil(a->unprot, p);
  while (s && s->key < e) {
    uintptr_t sk = s->key, se = s->key + s->len;
    unsigned fl = s->flags;
    atree_remove(&a->unprot, sk);
    a->nunprot--;
    uintptr_t lo = sk > p ? sk : p, hi = se < e ? se : e;
    if (lo < be) {
      size_t in = (hi < be ? hi : be) - lo;
      covered += in;
      if (fl & ANODE_CLEAN)
        *clean += in;
    }
    if (hi > be)
      *guard_rw = 1;
    struct anode *spare = s;
    if (sk < p) {
      reinsert(a, spare, sk, p - sk, fl);
      spare = NULL;
    }
    if (se > e) {
      reinsert(a, spare, e, se - e, fl);
      spare = NULL;
    }
    if (spare)
      apool_put(&a->pool, spare);
    s = atree_ceil(a->unprot, se);
  }
  return covered;
}

struct flush_run {
  struct emu_arena *a;
  uintptr_t lo, hi;
};

/* 1 if a live extent overlaps [LO, HI). */
static int live_in(const struct emu_arena *a, uintptr_t lo, uintptr_t hi) {
  uintptr_t k = abits_floor(&a->starts, hi - 1);
  if (!k)
    return 0;
  if (k >= lo)
    return 1;
  const struct hslot *h = ahash_find(&a->bystart, k);
  return h && k + h->node->len > lo;
}

/* Ranges are joined across gaps of at most this many bytes that hold no
 * live block: such pages are PROT_NONE already (a freed block's guard
 * page, typically), so one call covers many freed blocks. */
#define JOIN_GAP_MAX ((size_t)1 << 20)

static void flush_one(struct anode *s, void *arg) {
  struct flush_run *r = arg;
  if (r->hi != s->key &&
      (!r->hi || s->key - r->hi > JOIN_GAP_MAX ||
       live_in(r->a, r->hi, s->key))) {
    protect(r->a, r->lo, r->hi - r->lo);
    r->lo = s->key;
  }
  r->hi = s->key + s->len;
}

static void release_one(struct anode *s, void *arg) {
  apool_put(&((struct emu_arena *)arg)->pool, s);
}

void arena_unprot_flush(struct emu_arena *a) {
  if (!a->unprot)
    return;
  struct flush_run r = {a, 0, 0};
  atree_walk(a->unprot, flush_one, &r);
  protect(a, r.lo, r.hi - r.lo);
  atree_walk(a->unprot, release_one, a);
  a->unprot = NULL;
  a->nunprot = 0;
}
