/* The checking mode's table of device blocks (check.h): every block the
 * runtime allocated (mapped data, private buffers, omp_target_alloc) and
 * every declare-target global, per device, in a treap keyed by the
 * start of the device range (live blocks never overlap; the links, a
 * parent link among them so that a free takes a block out without a walk
 * from the root, are in the block, so adding one allocates nothing;
 * priorities are a hash of the start, so the shape is the same every run)
 * and, for the lookups of a block's own start (most of them: allocation,
 * free, map decisions, whole-block copies), a hash by start address;
 * freed blocks are kept, newest first, for naming what a stale pointer
 * points into.  Everything here runs under check_lock and calls nothing of
 * the other check files. */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64
/* Freed blocks remembered per device (then forgotten, oldest first). */
#define FREED_KEPT 4096

struct devtab {
  struct cblock *live;        /* treap root */
  struct cblock **byaddr;     /* open hash by tgt (NULL empty, TOMB gone) */
  size_t cap, used;           /* used counts tombstones */
  struct cblock *globals;
  struct cblock *freed[FREED_KEPT]; /* ring, newest at freed_head - 1 */
  unsigned freed_head, nfreed;
  uintptr_t freed_lo, freed_hi; /* the span of every block ever freed */
};

static struct devtab *devs[MAX_DEVICES];
/* The live block the last range lookup found: a launch looks its blocks
 * up a dozen times (cleared when it leaves the live blocks). */
static struct cblock *last_found;
static uint64_t seq;
static struct cblock tomb_block;
#define TOMB (&tomb_block)
/* Block records given back, for reuse (one allocation per block saved). */
static struct cblock *spare;

static struct cblock *new_block(void) {
  struct cblock *b = spare;
  if (!b)
    return calloc(1, sizeof *b);
  spare = b->next_freed;
  /* The next record given back left the cache long ago (it was freed
   * FREED_KEPT frees before): fetched while this one is filled. */
  if (spare)
    for (size_t o = 0; o < sizeof *spare; o += 64)
      __builtin_prefetch((char *)spare + o, 1);
  memset(b, 0, sizeof *b);
  return b;
}

static void drop_block(struct cblock *b) {
  b->next_freed = spare;
  spare = b;
}

static size_t slot_of(uintptr_t tgt, size_t cap) {
  return (size_t)((tgt >> 3) * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
}

/* The live block starting at TGT, from the hash. */
static struct cblock *by_start(const struct devtab *t, uintptr_t tgt) {
  if (!t->cap)
    return NULL;
  for (size_t j = slot_of(tgt, t->cap);; j = (j + 1) & (t->cap - 1)) {
    struct cblock *b = t->byaddr[j];
    if (!b)
      return NULL;
    if (b != TOMB && b->tgt == tgt)
      return b;
  }
}

static void hash_put(struct devtab *t, struct cblock *b) {
  if ((t->used + 1) * 2 > t->cap) {
    /* Full of tombstones or of blocks: rebuilt at the same size when at
     * most a quarter of the slots hold live blocks, else twice as big, so
     * the table follows the live blocks, not every block ever added. */
    size_t live = 0;
    for (size_t i = 0; i < t->cap; i++)
      live += t->byaddr[i] && t->byaddr[i] != TOMB;
    size_t nc = !t->cap ? 256 : (live + 1) * 4 <= t->cap ? t->cap : t->cap * 2;
    struct cblock **n = calloc(nc, sizeof *n);
    if (!n)
      return; /* lookups fall back to the tree */
    for (size_t i = 0; i < t->cap; i++)
      if (t->byaddr[i] && t->byaddr[i] != TOMB) {
        size_t j = slot_of(t->byaddr[i]->tgt, nc);
        while (n[j])
          j = (j + 1) & (nc - 1);
        n[j] = t->byaddr[i];
      }
    free(t->byaddr);
    t->byaddr = n;
    t->cap = nc;
    t->used = live;
  }
  size_t j = slot_of(b->tgt, t->cap);
  while (t->byaddr[j] && t->byaddr[j] != TOMB)
    j = (j + 1) & (t->cap - 1);
  if (!t->byaddr[j])
    t->used++;
  t->byaddr[j] = b;
}

static void hash_drop(struct devtab *t, struct cblock *b) {
  if (!t->cap)
    return;
  for (size_t j = slot_of(b->tgt, t->cap); t->byaddr[j];
       j = (j + 1) & (t->cap - 1))
    if (t->byaddr[j] == b) {
      t->byaddr[j] = TOMB;
      return;
    }
}

static struct devtab *tab(int32_t dev, int create) {
  if (dev < 0 || dev >= MAX_DEVICES)
    return NULL;
  if (!devs[dev] && create)
    devs[dev] = calloc(1, sizeof *devs[dev]);
  return devs[dev];
}

/* ---- the treap of live blocks ---- */

static uintptr_t end_of(const struct cblock *b) {
  return b->tgt + (b->size ? b->size : 1); /* an empty block: one byte */
}

static uint64_t prio_of(uintptr_t k) {
  uint64_t x = (uint64_t)k + 0x9e3779b97f4a7c15ull;
  x = (x ^ x >> 30) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ x >> 27) * 0x94d049bb133111ebull;
  return x ^ x >> 31;
}

/* Put X in its parent's place (one rotation; X has a parent). */
static void t_rotate_up(struct devtab *t, struct cblock *x) {
  struct cblock *p = x->up, *g = p->up;
  if (p->left == x) {
    p->left = x->right;
    if (x->right)
      x->right->up = p;
    x->right = p;
  } else {
    p->right = x->left;
    if (x->left)
      x->left->up = p;
    x->left = p;
  }
  p->up = x;
  x->up = g;
  if (!g)
    t->live = x;
  else if (g->left == p)
    g->left = x;
  else
    g->right = x;
}

/* Insert B (no live block starts where it does) into T's tree. */
static void t_insert(struct devtab *t, struct cblock *b) {
  struct cblock *p = NULL, **link = &t->live;
  while (*link) {
    p = *link;
    link = b->tgt < p->tgt ? &p->left : &p->right;
  }
  *link = b;
  b->up = p;
  b->left = b->right = NULL;
  while (b->up && b->prio > b->up->prio)
    t_rotate_up(t, b);
}

/* Take B out of T's tree (nothing if B is not in it): rotated down to a
 * leaf through its parent link, with no walk from the root (a shuffled
 * free missed the cache at every level of that walk). */
static void t_remove(struct devtab *t, struct cblock *b) {
  if (!b->up && t->live != b)
    return;
  while (b->left || b->right) {
    struct cblock *c = !b->right                       ? b->left
                       : !b->left                      ? b->right
                       : b->left->prio > b->right->prio ? b->left
                                                        : b->right;
    t_rotate_up(t, c);
  }
  if (!b->up)
    t->live = NULL;
  else if (b->up->left == b)
    b->up->left = NULL;
  else
    b->up->right = NULL;
  b->up = NULL;
}

/* The live block with the greatest start <= X. */
static struct cblock *t_floor(struct cblock *n, uintptr_t x) {
  struct cblock *best = NULL;
  while (n) {
    if (n->tgt <= x) {
      best = n;
      n = n->right;
    } else {
      n = n->left;
    }
  }
  return best;
}

/* A live block of T overlapping [LO, HI) (HI > LO), or NULL. */
static struct cblock *t_overlap(const struct devtab *t, uintptr_t lo,
                                uintptr_t hi) {
  struct cblock *b = t_floor(t->live, hi - 1);
  return b && end_of(b) > lo ? b : NULL;
}

struct cblock *cb_find_range(int32_t dev, uintptr_t tgt, uintptr_t size) {
  struct cblock *c = last_found;
  uintptr_t n = size ? size : 1, cn = c && c->size ? c->size : 1;
  /* Live blocks never overlap: the one holding the range is the answer. */
  if (c && c->dev == dev && tgt >= c->tgt && n <= cn && tgt - c->tgt <= cn - n)
    return c;
  struct devtab *t = tab(dev, 0);
  if (!t || !t->live)
    return NULL;
  struct cblock *s = by_start(t, tgt);
  if (s)
    return size <= (s->size ? s->size : 1) ? (last_found = s) : NULL;
  struct cblock *b = t_floor(t->live, tgt);
  return b && tgt + (size ? size : 1) <= end_of(b) ? (last_found = b) : NULL;
}

struct cblock *cb_find(int32_t dev, uintptr_t tgt) {
  return cb_find_range(dev, tgt, 1);
}

struct cblock *cb_find_any(uintptr_t tgt) {
  for (int d = 0; d < MAX_DEVICES; d++) {
    struct cblock *b = devs[d] ? cb_find(d, tgt) : NULL;
    if (b)
      return b;
  }
  return NULL;
}

struct cblock *cb_find_freed(int32_t dev, uintptr_t tgt) {
  for (int d = dev < 0 ? 0 : dev; d < (dev < 0 ? MAX_DEVICES : dev + 1);
       d++) {
    struct devtab *t = devs[d];
    if (!t || !t->nfreed || tgt < t->freed_lo || tgt >= t->freed_hi ||
        cb_find(d, tgt))
      continue;
    for (unsigned k = 0; k < t->nfreed; k++) {
      struct cblock *b =
          t->freed[(t->freed_head + FREED_KEPT - 1 - k) % FREED_KEPT];
      if (tgt >= b->tgt && tgt < b->tgt + (b->size ? b->size : 1))
        return b;
    }
  }
  return NULL;
}

/* The expected bytes of the block freed last, kept for the next block of
 * its size (a launch loop maps a block of the same size each time: one
 * malloc and free of its size fewer per launch). */
static unsigned char *spare_expect;
static uintptr_t spare_expect_size;

static void release(struct cblock *b) {
  while (b->edges) {
    struct cedge *n = b->edges->next;
    free(b->edges);
    b->edges = n;
  }
  if (b->expect) {
    free(spare_expect);
    spare_expect = b->expect;
    spare_expect_size = b->size;
  }
  b->expect = NULL;
  free(b->ptrmap);
  b->ptrmap = NULL;
  free(b->pending_lost);
  b->pending_lost = NULL;
  free(b->pending_uninit);
  b->pending_uninit = NULL;
}

static void unlink_global(struct devtab *t, struct cblock *b) {
  for (struct cblock **p = &t->globals; *p; p = &(*p)->next_global)
    if (*p == b) {
      *p = b->next_global;
      return;
    }
}

struct cblock *cb_add(int32_t dev, uintptr_t tgt, uintptr_t size,
                      enum cblock_kind kind) {
  struct devtab *t = tab(dev, 1);
  struct cblock *b = t ? new_block() : NULL;
  if (!b) {
    ompemu_error("ompemu", "check: out of memory recording device block "
                 OMPEMU_PTR " of device %d", OMPEMU_P(tgt), (int)dev);
    return NULL;
  }
  b->dev = dev;
  b->tgt = tgt;
  b->size = size;
  b->kind = kind;
  b->alloc_seq = ++seq;
  b->prio = prio_of(tgt);
  /* A block the table missed the end of (a free it did not see): gone. */
  struct cblock *old;
  while ((old = t_overlap(t, tgt, end_of(b))) != NULL) {
    if (old == last_found)
      last_found = NULL;
    t_remove(t, old);
    hash_drop(t, old);
    if (old->kind == CB_GLOBAL)
      unlink_global(t, old);
    release(old);
    drop_block(old);
  }
  t_insert(t, b);
  hash_put(t, b);
  last_found = b; /* the block's own events look it up next */
  if (kind == CB_GLOBAL) {
    b->next_global = t->globals;
    t->globals = b;
  }
  return b;
}

void cb_free(struct cblock *b, const char *where) {
  struct devtab *t = tab(b->dev, 0);
  if (!t)
    return;
  if (b == last_found)
    last_found = NULL;
  t_remove(t, b);
  hash_drop(t, b);
  if (b->kind == CB_GLOBAL)
    unlink_global(t, b);
  release(b);
  b->freed = 1;
  b->freed_at = where;
  if (!t->nfreed || b->tgt < t->freed_lo)
    t->freed_lo = b->tgt;
  if (b->tgt + b->size > t->freed_hi)
    t->freed_hi = b->tgt + (b->size ? b->size : 1);
  if (t->nfreed == FREED_KEPT)
    drop_block(t->freed[t->freed_head]);
  else
    t->nfreed++;
  t->freed[t->freed_head] = b;
  t->freed_head = (t->freed_head + 1) % FREED_KEPT;
}

struct cblock *cb_globals(int32_t dev) {
  struct devtab *t = tab(dev, 0);
  return t ? t->globals : NULL;
}

/* In address order; 1 once FN returned non-zero. */
static int walk(struct cblock *n, int (*fn)(struct cblock *, void *),
                void *arg) {
  for (; n; n = n->right) {
    if (walk(n->left, fn, arg) || fn(n, arg))
      return 1;
  }
  return 0;
}

void cb_foreach(int (*fn)(struct cblock *b, void *arg), void *arg) {
  for (int d = 0; d < MAX_DEVICES; d++)
    if (devs[d] && walk(devs[d]->live, fn, arg))
      return;
}

void cb_link(struct cblock *b, uintptr_t to) {
  for (struct cedge *e = b->edges; e; e = e->next)
    if (e->to == to)
      return;
  struct cedge *e = malloc(sizeof *e);
  if (!e)
    return;
  e->to = to;
  e->next = b->edges;
  b->edges = e;
}

unsigned char *cb_expect(struct cblock *b, int whole) {
  if (b->expect || !b->size)
    return b->expect;
  if (spare_expect && spare_expect_size == b->size) {
    b->expect = spare_expect;
    spare_expect = NULL;
    if (!whole) /* zeros where no copy wrote yet */
      memset(b->expect, 0, b->size);
  } else {
    b->expect = whole ? malloc(b->size) : calloc(1, b->size);
  }
  return b->expect;
}

void cb_mark_pointer(struct cblock *b, uintptr_t off) {
  if (off >= b->size)
    return;
  if (!b->ptrmap && !(b->ptrmap = calloc(1, b->size / 64 + 1)))
    return;
  b->ptrmap[off / 64] |= (unsigned char)(1u << (off / 8 % 8));
}

int cb_is_pointer(const struct cblock *b, uintptr_t off) {
  return b->ptrmap && off < b->size &&
         (b->ptrmap[off / 64] >> (off / 8 % 8) & 1);
}

uint64_t cb_next_seq(void) { return ++seq; }

int cb_is_device_anchor(uintptr_t lo, uintptr_t hi) {
  for (int d = 0; d < MAX_DEVICES; d++) {
    struct devtab *t = devs[d];
    if (t && t->live && t_overlap(t, lo, hi > lo ? hi : lo + 1))
      return 1;
  }
  return 0;
}
