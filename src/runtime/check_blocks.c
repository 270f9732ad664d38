/* The checking mode's table of device blocks (check.h): every block the
 * runtime allocated (mapped data, private buffers, omp_target_alloc) and
 * every declare-target global, per device.  Live blocks never overlap.
 * They are found by the 4 KiB bucket their start lies in: an open hash of
 * buckets, each the list of the blocks starting there, by start.  In
 * check mode the emu plugin gives every block a page of its own, so a
 * list holds one block and any lookup inside it is one probe, whatever
 * the number of blocks.  The blocks that end in a later bucket are also
 * in a treap keyed by start, for the addresses past their first bucket
 * (the links, a parent link among them so that a free takes a block out
 * without a walk from the root, are in the block, so adding one allocates
 * nothing; priorities are a hash of the start, so the shape is the same
 * every run).  What names a freed block is kept, newest first, for naming
 * what a stale pointer points into; its record is used again at once
 * (while in the cache).  Everything here runs under check_lock and
 * calls nothing of the other check files. */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES CHECK_MAX_DEVICES
/* Freed blocks remembered per device (then forgotten, oldest first). */
#define FREED_KEPT 4096

/* What names a freed block (check_block_words, use_after_free). */
struct ghost {
  uintptr_t tgt, size, hst;
  const char *var, *freed_at;
  int32_t dev;
  enum cblock_kind kind;
};

#define BUCKET_SHIFT 12
/* Buckets between the ends of a range looked at one by one for the blocks
 * starting there, at most (else the whole table is). */
#define BUCKET_SCAN_MAX 64

struct devtab {
  struct cblock *big;         /* treap root: the blocks spanning buckets */
  struct cblock **bucket;     /* open hash by bucket: the list of its blocks
                                 (NULL empty, TOMB gone) */
  size_t cap, used;           /* used counts tombstones */
  size_t nlive;
  uintptr_t lo, hi;           /* live blocks lie in [lo, hi) */
  struct cblock *globals;
  struct ghost freed[FREED_KEPT]; /* ring, newest at freed_head - 1 */
  unsigned freed_head, nfreed;
  uintptr_t freed_lo, freed_hi; /* the span of every block ever freed */
};

static struct devtab *devs[MAX_DEVICES];
/* The live block the last range lookup found: a launch looks its blocks
 * up a dozen times (cleared when it leaves the live blocks); cb_find_range
 * in check.h answers from it without a call. */
struct cblock *cb_last_found;
static uint64_t seq;
static struct cblock tomb_block;
#define TOMB (&tomb_block)
/* Block records given back, for reuse (one allocation per block saved). */
static struct cblock *spare;

/* Records come in chunks, each in whole cache lines of its own. */
#define RECORD_BYTES ((sizeof(struct cblock) + 63) / 64 * 64)
#define RECORDS_PER_CHUNK 64

static struct cblock *new_block(void) {
  struct cblock *b = spare;
  if (!b) {
    char *c = aligned_alloc(64, RECORD_BYTES * RECORDS_PER_CHUNK);
    if (!c)
      return NULL;
    for (int i = RECORDS_PER_CHUNK - 1; i >= 0; i--) {
      b = (struct cblock *)(c + (size_t)i * RECORD_BYTES);
      b->next_freed = spare;
      spare = b;
    }
  }
  spare = b->next_freed;
  /* Given back long ago when many blocks come and go (it is the last one
   * freed): fetched while this one is filled. */
  if (spare)
    for (size_t o = 0; o < sizeof *spare; o += 64)
      __builtin_prefetch((char *)spare + o, 1);
  check_zero(b, sizeof *b);
  return b;
}

static void drop_block(struct cblock *b) {
  b->next_freed = spare;
  spare = b;
}

static uintptr_t bucket_of(uintptr_t x) { return x >> BUCKET_SHIFT; }

/* SLOT_RUN buckets in a row have slots in a row (blocks allocated one
 * after another share a cache line of the table); the runs are spread by
 * a hash.  Longer runs would keep more order, but a run's slots are taken
 * by every run that hashes there: a dense run over another fills both. */
#define SLOT_RUN 8
static size_t slot_of(uintptr_t bucket, size_t cap) {
  uint64_t run = (uint64_t)(bucket / SLOT_RUN) * 0x9e3779b97f4a7c15ull >> 32;
  return (size_t)(run * SLOT_RUN + bucket % SLOT_RUN) & (cap - 1);
}

static uintptr_t end_of(const struct cblock *b) {
  return b->tgt + (b->size ? b->size : 1); /* an empty block: one byte */
}

/* B ends in a later bucket than the one it starts in. */
static int spans(const struct cblock *b) {
  return bucket_of(b->tgt) != bucket_of(end_of(b) - 1);
}

/* The slot holding the list of the blocks starting in BUCKET, or NULL. */
static struct cblock **head_of(const struct devtab *t, uintptr_t bucket) {
  if (!t->cap)
    return NULL;
  for (size_t j = slot_of(bucket, t->cap);; j = (j + 1) & (t->cap - 1)) {
    struct cblock *b = t->bucket[j];
    if (!b)
      return NULL;
    if (b != TOMB && bucket_of(b->tgt) == bucket)
      return &t->bucket[j];
  }
}

/* The live block starting in X's bucket with the greatest start <= X. */
static struct cblock *floor_in_bucket(const struct devtab *t, uintptr_t x) {
  struct cblock **h = head_of(t, bucket_of(x)), *best = NULL;
  for (struct cblock *b = h ? *h : NULL; b && b->tgt <= x;
       b = b->next_in_bucket)
    best = b;
  return best;
}

/* Put B in the list of its bucket; -1 when the table is full and cannot
 * grow. */
static int hash_put(struct devtab *t, struct cblock *b) {
  if ((t->used + 1) * 2 > t->cap) {
    /* Full of tombstones or of lists: rebuilt at the same size when at
     * most a quarter of the slots hold lists, else twice as big, so the
     * table follows the live blocks, not every block ever added. */
    size_t live = 0;
    for (size_t i = 0; i < t->cap; i++)
      live += t->bucket[i] && t->bucket[i] != TOMB;
    size_t nc = !t->cap ? 256 : (live + 1) * 4 <= t->cap ? t->cap : t->cap * 2;
    struct cblock **n = calloc(nc, sizeof *n);
    if (n) {
      for (size_t i = 0; i < t->cap; i++)
        if (t->bucket[i] && t->bucket[i] != TOMB) {
          size_t j = slot_of(bucket_of(t->bucket[i]->tgt), nc);
          while (n[j])
            j = (j + 1) & (nc - 1);
          n[j] = t->bucket[i];
        }
      free(t->bucket);
      t->bucket = n;
      t->cap = nc;
      t->used = live;
    } else if (t->used + 1 >= t->cap) {
      return -1; /* fuller only: a probe must meet an empty slot */
    }
  }
  uintptr_t k = bucket_of(b->tgt);
  size_t tomb = t->cap;
  for (size_t j = slot_of(k, t->cap);; j = (j + 1) & (t->cap - 1)) {
    struct cblock *h = t->bucket[j];
    if (!h) {
      if (tomb == t->cap) {
        tomb = j;
        t->used++;
      }
      break;
    }
    if (h == TOMB) {
      if (tomb == t->cap)
        tomb = j;
      continue;
    }
    if (bucket_of(h->tgt) == k) {
      struct cblock **at = &t->bucket[j];
      while (*at && (*at)->tgt < b->tgt)
        at = &(*at)->next_in_bucket;
      b->next_in_bucket = *at;
      *at = b;
      return 0;
    }
  }
  b->next_in_bucket = NULL;
  t->bucket[tomb] = b;
  return 0;
}

/* Take B out of the list of its bucket: 1, or 0 if it was not there. */
static int hash_drop(struct devtab *t, struct cblock *b) {
  struct cblock **h = head_of(t, bucket_of(b->tgt));
  if (!h)
    return 0;
  for (struct cblock **at = h; *at; at = &(*at)->next_in_bucket)
    if (*at == b) {
      *at = b->next_in_bucket;
      b->next_in_bucket = NULL;
      if (!*h)
        *h = TOMB;
      return 1;
    }
  return 0;
}

static struct devtab *tab(int32_t dev, int create) {
  if (dev < 0 || dev >= MAX_DEVICES)
    return NULL;
  if (!devs[dev] && create)
    devs[dev] = calloc(1, sizeof *devs[dev]);
  return devs[dev];
}

/* ---- the treap of the live blocks that span buckets ---- */

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
    t->big = x;
  else if (g->left == p)
    g->left = x;
  else
    g->right = x;
}

/* Insert B (no live block starts where it does) into T's tree. */
static void t_insert(struct devtab *t, struct cblock *b) {
  struct cblock *p = NULL, **link = &t->big;
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
  if (!b->up && t->big != b)
    return;
  while (b->left || b->right) {
    struct cblock *c = !b->right                       ? b->left
                       : !b->left                      ? b->right
                       : b->left->prio > b->right->prio ? b->left
                                                        : b->right;
    t_rotate_up(t, c);
  }
  if (!b->up)
    t->big = NULL;
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

/* Take live block B out of T's table. */
static void unlink_live(struct devtab *t, struct cblock *b) {
  if (b == cb_last_found)
    cb_last_found = NULL;
  t_remove(t, b);
  if (hash_drop(t, b) && !--t->nlive)
    t->lo = t->hi = 0;
}

/* The live block of T with the greatest start <= X among those starting
 * in X's bucket, else among those spanning buckets: the one that holds X
 * if any does (a block holding X that starts in an earlier bucket spans
 * buckets, and none starts between it and X). */
static struct cblock *t_holder(const struct devtab *t, uintptr_t x) {
  struct cblock *b = floor_in_bucket(t, x);
  return b ? b : t_floor(t->big, x);
}

/* A live block of T starting in a bucket of [K0, K1) that ends after LO,
 * or NULL: the buckets one by one, or the whole table when they are
 * many. */
static struct cblock *ends_after(const struct devtab *t, uintptr_t k0,
                                 uintptr_t k1, uintptr_t lo) {
  if (k1 - k0 <= BUCKET_SCAN_MAX) {
    for (uintptr_t k = k0; k < k1; k++) {
      struct cblock **h = head_of(t, k);
      for (struct cblock *b = h ? *h : NULL; b; b = b->next_in_bucket)
        if (end_of(b) > lo)
          return b;
    }
    return NULL;
  }
  for (size_t i = 0; i < t->cap; i++) {
    struct cblock *b = t->bucket[i];
    if (!b || b == TOMB || bucket_of(b->tgt) < k0 || bucket_of(b->tgt) >= k1)
      continue;
    for (; b; b = b->next_in_bucket)
      if (end_of(b) > lo)
        return b;
  }
  return NULL;
}

/* A live block of T overlapping [LO, HI) (HI > LO), or NULL. */
static struct cblock *t_overlap(const struct devtab *t, uintptr_t lo,
                                uintptr_t hi) {
  if (!t->nlive || hi <= t->lo || lo >= t->hi)
    return NULL;
  /* The block with the greatest start below HI is the one if any
   * overlaps (another would overlap it) ... */
  struct cblock *b = floor_in_bucket(t, hi - 1);
  if (b)
    return end_of(b) > lo ? b : NULL;
  /* ... when it starts in the bucket of HI - 1; else it spans buckets, or
   * starts in a bucket of its own between LO's and HI - 1's. */
  b = t_floor(t->big, hi - 1);
  if (b && end_of(b) > lo)
    return b;
  return ends_after(t, bucket_of(lo), bucket_of(hi - 1), lo);
}

struct cblock *cb_find_lookup(int32_t dev, uintptr_t tgt, uintptr_t size) {
  uintptr_t n = size ? size : 1;
  struct devtab *t = tab(dev, 0);
  if (!t || !t->nlive)
    return NULL;
  struct cblock *b = t_holder(t, tgt);
  /* Without TGT + N, which wraps for an address near the top (a kernel's
   * ~0 argument: clang 22's and flang's dynamic-memory pointer). */
  return b && tgt < end_of(b) && n <= end_of(b) - tgt ? (cb_last_found = b)
                                                      : NULL;
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
      const struct ghost *g =
          &t->freed[(t->freed_head + FREED_KEPT - 1 - k) % FREED_KEPT];
      if (tgt >= g->tgt && tgt < g->tgt + (g->size ? g->size : 1)) {
        /* The answer lasts until the next call. */
        static struct cblock view;
        memset(&view, 0, sizeof view);
        view.dev = g->dev;
        view.tgt = g->tgt;
        view.size = g->size;
        view.hst = g->hst;
        view.kind = g->kind;
        view.var = g->var;
        view.freed = 1;
        view.freed_at = g->freed_at;
        return &view;
      }
    }
  }
  return NULL;
}

/* Expected bytes of freed blocks, kept for the next blocks (a loop maps
 * blocks of the same sizes again and again: no malloc and free per
 * block).  Blocks of up to EXPECT_CLASS_MAX bytes get buffers of a
 * multiple of EXPECT_CLASS bytes, kept per multiple, EXPECT_KEPT bytes of
 * them at most in all (a stack of pointers per multiple: taking one
 * touches no buffer, which may have left the cache long ago); the last
 * larger one is kept for the next block of its size. */
#define EXPECT_CLASS 64
#define EXPECT_CLASS_MAX 4096
#define EXPECT_KEPT ((size_t)1 << 20)
static struct {
  void **v;
  size_t n, cap;
} expect_free[EXPECT_CLASS_MAX / EXPECT_CLASS];
static size_t expect_kept;
static unsigned char *spare_expect;
static uintptr_t spare_expect_size;

/* The class of a block of SIZE bytes (> 0), or -1 above the largest. */
static int expect_class(uintptr_t size) {
  return size <= EXPECT_CLASS_MAX ? (int)((size - 1) / EXPECT_CLASS) : -1;
}

/* A buffer for the expected bytes of a block of SIZE (> 0) bytes. */
static unsigned char *expect_get(uintptr_t size) {
  int c = expect_class(size);
  if (c < 0) {
    if (spare_expect && spare_expect_size == size) {
      unsigned char *x = spare_expect;
      spare_expect = NULL;
      return x;
    }
    return malloc(size);
  }
  if (!expect_free[c].n)
    return malloc((size_t)(c + 1) * EXPECT_CLASS);
  expect_kept -= (size_t)(c + 1) * EXPECT_CLASS;
  return expect_free[c].v[--expect_free[c].n];
}

/* Keep X, the expected bytes of a block of SIZE bytes, or free it. */
static void expect_put(unsigned char *x, uintptr_t size) {
  int c = expect_class(size);
  if (c < 0) {
    free(spare_expect);
    spare_expect = x;
    spare_expect_size = size;
    return;
  }
  size_t len = (size_t)(c + 1) * EXPECT_CLASS;
  __typeof__(&expect_free[0]) k = &expect_free[c];
  if (expect_kept + len > EXPECT_KEPT) {
    free(x);
    return;
  }
  if (k->n == k->cap) {
    size_t nc = k->cap ? 2 * k->cap : 64;
    void **v = realloc(k->v, nc * sizeof *v);
    if (!v) {
      free(x);
      return;
    }
    k->v = v;
    k->cap = nc;
  }
  k->v[k->n++] = x;
  expect_kept += len;
}

/* The links of every block by (block, offset), for cb_link's "already
 * there?": a block of an array of structs links thousands, and a pointer
 * attached again and again (a launch loop over a mapped pointer's
 * section) is one link, not one per launch.  Open addressing with
 * tombstones, rebuilt when full of them. */
struct link_slot {
  const struct cblock *b; /* NULL: empty; LINK_TOMB: removed */
  uintptr_t off;
  struct cedge *e;
};
#define LINK_TOMB ((const struct cblock *)1)
static struct link_slot *links;
static size_t links_cap, links_used; /* used: live and tombstones */

static size_t link_hash(const struct cblock *b, uintptr_t off) {
  uint64_t h = (uint64_t)(uintptr_t)b * 0x9e3779b97f4a7c15u ^
               (uint64_t)off * 0xc2b2ae3d27d4eb4fu;
  return (size_t)(h ^ h >> 31);
}

static struct link_slot *link_slot(const struct cblock *b, uintptr_t off,
                                   int for_insert) {
  size_t mask = links_cap - 1;
  struct link_slot *tomb = NULL;
  for (size_t j = link_hash(b, off) & mask;; j = (j + 1) & mask) {
    struct link_slot *s = &links[j];
    if (!s->b)
      return for_insert ? (tomb ? tomb : s) : NULL;
    if (s->b == LINK_TOMB) {
      if (!tomb)
        tomb = s;
    } else if (s->b == b && s->off == off) {
      return s;
    }
  }
}

/* Room for one more pair: 0, or -1 out of memory. */
static int links_room(void) {
  if (links_cap && 4 * (links_used + 1) <= 3 * links_cap)
    return 0;
  size_t live = 0;
  for (size_t j = 0; j < links_cap; j++)
    live += links[j].b && links[j].b != LINK_TOMB;
  size_t cap = 1024;
  while (cap < 4 * (live + 1))
    cap *= 2;
  struct link_slot *old = links, *n = calloc(cap, sizeof *n);
  size_t oldcap = links_cap;
  if (!n)
    return -1;
  links = n;
  links_cap = cap;
  links_used = 0;
  for (size_t j = 0; j < oldcap; j++)
    if (old[j].b && old[j].b != LINK_TOMB) {
      *link_slot(old[j].b, old[j].off, 1) = old[j];
      links_used++;
    }
  free(old);
  return 0;
}

static void release(struct cblock *b) {
  while (b->edges) {
    struct cedge *n = b->edges->next;
    struct link_slot *s = links ? link_slot(b, b->edges->off, 0) : NULL;
    if (s)
      s->b = LINK_TOMB;
    free(b->edges);
    b->edges = n;
  }
  if (b->expect) {
    expect_put(b->expect, b->size);
    b->expect = NULL;
  }
  /* Rarely set: no call for them otherwise. */
  if (b->ptrmap) {
    free(b->ptrmap);
    b->ptrmap = NULL;
  }
  if (b->pending_lost) {
    free(b->pending_lost);
    b->pending_lost = NULL;
  }
  if (b->pending_uninit) {
    free(b->pending_uninit);
    b->pending_uninit = NULL;
  }
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
  /* A block the table missed the end of (a free it did not see): gone. */
  struct cblock *old;
  while ((old = t_overlap(t, tgt, end_of(b))) != NULL) {
    unlink_live(t, old);
    if (old->kind == CB_GLOBAL)
      unlink_global(t, old);
    release(old);
    drop_block(old);
  }
  if (hash_put(t, b) != 0) {
    drop_block(b);
    ompemu_error("ompemu", "check: out of memory recording device block "
                 OMPEMU_PTR " of device %d", OMPEMU_P(tgt), (int)dev);
    return NULL;
  }
  if (spans(b)) {
    b->prio = prio_of(tgt);
    t_insert(t, b);
  }
  if (!t->nlive++ || tgt < t->lo)
    t->lo = tgt;
  if (end_of(b) > t->hi)
    t->hi = end_of(b);
  cb_last_found = b; /* the block's own events look it up next */
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
  unlink_live(t, b);
  if (b->kind == CB_GLOBAL)
    unlink_global(t, b);
  release(b);
  if (!t->nfreed || b->tgt < t->freed_lo)
    t->freed_lo = b->tgt;
  if (b->tgt + b->size > t->freed_hi)
    t->freed_hi = b->tgt + (b->size ? b->size : 1);
  if (t->nfreed < FREED_KEPT)
    t->nfreed++;
  t->freed[t->freed_head] = (struct ghost){b->tgt,   b->size, b->hst, b->var,
                                           where,    b->dev,  b->kind};
  t->freed_head = (t->freed_head + 1) % FREED_KEPT;
  drop_block(b);
}

struct cblock *cb_globals(int32_t dev) {
  struct devtab *t = tab(dev, 0);
  return t ? t->globals : NULL;
}

static int by_start(const void *x, const void *y) {
  uintptr_t a = (*(struct cblock *const *)x)->tgt;
  uintptr_t b = (*(struct cblock *const *)y)->tgt;
  return a < b ? -1 : a > b;
}

/* The live block of T with the lowest start above AFTER (any if FIRST). */
static struct cblock *next_after(const struct devtab *t, uintptr_t after,
                                 int first) {
  struct cblock *best = NULL;
  for (size_t i = 0; i < t->cap; i++)
    for (struct cblock *b = t->bucket[i] == TOMB ? NULL : t->bucket[i]; b;
         b = b->next_in_bucket)
      if ((first || b->tgt > after) && (!best || b->tgt < best->tgt))
        best = b;
  return best;
}

/* T's live blocks in address order; 1 once FN returned non-zero. */
static int walk(const struct devtab *t, int (*fn)(struct cblock *, void *),
                void *arg) {
  struct cblock **v = malloc(t->nlive * sizeof *v);
  if (!v) { /* the same order, a scan of the table per block */
    uintptr_t after = 0;
    for (struct cblock *b = next_after(t, 0, 1); b;
         b = next_after(t, after, 0)) {
      after = b->tgt;
      if (fn(b, arg))
        return 1;
    }
    return 0;
  }
  size_t n = 0;
  for (size_t i = 0; i < t->cap; i++)
    for (struct cblock *b = t->bucket[i] == TOMB ? NULL : t->bucket[i];
         b && n < t->nlive; b = b->next_in_bucket)
      v[n++] = b;
  qsort(v, n, sizeof *v, by_start);
  int stop = 0;
  for (size_t i = 0; i < n && !stop; i++)
    stop = fn(v[i], arg);
  free(v);
  return stop;
}

void cb_foreach(int (*fn)(struct cblock *b, void *arg), void *arg) {
  for (int d = 0; d < MAX_DEVICES; d++)
    if (devs[d] && devs[d]->nlive && walk(devs[d], fn, arg))
      return;
}

void cb_link(struct cblock *b, uintptr_t off, uintptr_t to) {
  if (!to) {
    struct link_slot *s = b->edges && links ? link_slot(b, off, 0) : NULL;
    if (!s)
      return;
    struct cedge **p = &b->edges;
    while (*p != s->e)
      p = &(*p)->next;
    *p = s->e->next;
    free(s->e);
    s->b = LINK_TOMB;
    return;
  }
  if (links_room() != 0)
    return;
  struct link_slot *s = link_slot(b, off, 1);
  if (s->b == b) {
    s->e->to = to; /* the word holds another pointer now */
    return;
  }
  struct cedge *e = malloc(sizeof *e);
  if (!e)
    return;
  if (!s->b)
    links_used++;
  s->b = b;
  s->off = off;
  s->e = e;
  e->to = to;
  e->off = off;
  e->next = b->edges;
  b->edges = e;
}

unsigned char *cb_expect(struct cblock *b, int whole) {
  if (b->expect || !b->size)
    return b->expect;
  b->expect = expect_get(b->size);
  if (b->expect && !whole) /* zeros where no copy wrote yet */
    memset(b->expect, 0, b->size);
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
    if (t && t_overlap(t, lo, hi > lo ? hi : lo + 1))
      return 1;
  }
  return 0;
}
