/* Device memory arena (see arena.h): a fixed reserved range per device and
 * purpose, an address-ordered first-fit allocator over it, poisoning
 * (eager, or lazy for data), the check-mode layout with guard pages, and
 * the quarantine of freed blocks (check mode, or OMPEMU_QUARANTINE=1).
 *
 * Data structures (arena_index.h), all protected by emu_arena.lock:
 *  - BYSTART: table of live blocks by extent start (the block's start but
 *    in check mode): a copy to a mapped variable (the usual case) is
 *    checked with one load.
 *  - STARTS: a two-level bitmap of the extent starts of live blocks: the
 *    block holding an interior pointer is the highest start below it, a
 *    few word operations away whatever the number of blocks.
 *  - FREE: B+ tree of free extents by address (arena_extents.h),
 *    coalesced on free, with the largest extent below each child: the
 *    lowest extent that fits is found in O(log n) and few cache lines, so
 *    the same requests always give the same addresses.  HOLE, one free
 *    extent with no free neighbour, is kept beside the tree until FREE
 *    changes otherwise; in check mode SIDE, a few such extents, instead
 *    (arena_freeset.c).
 *  - COOL: FIFO of freed blocks held back from reuse (the reuse delay).
 *  - QUAR: FIFO of quarantined blocks; they return to FREE when an
 *    allocation would otherwise fail.  Only a fault's description looks
 *    one up (a walk), so no tree is kept for them.
 *  - PENDING: list of live blocks whose poison is still owed (lazy).
 *  - STALE: treap of freed ranges whose poison is still owed (lazy).
 *  - STALE_LAST: the last small freed extent whose poison is still owed
 *    (lazy, while one thread uses the arena): a block allocated there
 *    before the next kernel (a loop that maps and unmaps a buffer, without
 *    a reuse delay) owes only what its first copy leaves, and nothing is
 *    filled twice.
 * Poison writing and the system calls happen under the lock, so a copy
 * never races with a fill of the same block. */
#include "config.h"
#include "arena.h"
#include "arena_internal.h"
#include "envvar.h"
#include "biaslock.h"
#include "trace.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static size_t round_up(size_t x, size_t al) {
  return (x + al - 1) / al * al;
}

/* Freed memory is off limits to ASan in data arenas only: the loader reads
 * and checks the code arena's freed blocks itself. */
static int lazy_asan(const struct emu_arena *a) {
  return (a->flags & ARENA_LAZY) != 0;
}

/* The charge of a block of SIZE against the capacity. */
static size_t charge_of(const struct emu_arena *a, size_t size) {
  return round_up(size ? size : 1, a->align);
}

static void fifo_push(struct fifo *q, struct anode *n) {
  n->next = NULL;
  if (q->tail)
    q->tail->next = n;
  else
    q->head = n;
  q->tail = n;
  q->n++;
  q->bytes += n->len;
}

static struct anode *fifo_pop(struct fifo *q) {
  struct anode *n = q->head;
  if (!n)
    return NULL;
  q->head = n->next;
  if (!q->head)
    q->tail = NULL;
  q->n--;
  q->bytes -= n->len;
  return n;
}

/* ------------------------------------------------------------- stale */

static int stale_add(struct emu_arena *a, uintptr_t p, size_t len) {
  struct anode *s = apool_get(&a->pool);
  if (!s) {
    arena_fill(a, p, len, 1); /* no memory to remember it: pay now */
    return 0;
  }
  s->key = p;
  s->len = len;
  atree_insert(&a->stale, s);
  atomic_store_explicit(&a->owed, OWED_NOW, memory_order_relaxed);
  return 0;
}

/* [P, P+LEN) is being allocated: whatever it needs now is the new block's
 * poison, so cut it out of STALE. */
static void stale_cut(struct emu_arena *a, uintptr_t p, size_t len) {
  uintptr_t e = p + len;
  struct anode *s = atree_floor(a->stale, p);
  if (!s || s->key + s->len <= p)
    s = atree_ceil(a->stale, p);
  while (s && s->key < e) {
    uintptr_t sk = s->key, se = s->key + s->len;
    atree_remove(&a->stale, sk);
    if (sk < p) {
      s->len = p - sk;
      atree_insert(&a->stale, s);
      s = NULL;
    }
    if (se > e) {
      struct anode *r = s ? s : apool_get(&a->pool);
      s = NULL;
      if (r) {
        r->key = e;
        r->len = se - e;
        atree_insert(&a->stale, r);
      } else {
        arena_fill(a, e, se - e, 1);
      }
    }
    if (s)
      apool_put(&a->pool, s);
    s = atree_ceil(a->stale, se);
  }
}

/* Small freed extent [P, P+LEN) owes its poison until the next kernel
 * (arena_settle) or until allocated again; the older of the two it
 * replaces pays now. */
static void stale_last_set(struct emu_arena *a, uintptr_t p, size_t len) {
  struct xt_ext *sl = a->stale_last;
  if (sl[0].len && sl[1].len)
    arena_fill(a, sl[0].key, sl[0].len, 1);
  if (sl[1].len)
    sl[0] = sl[1];
  sl[1] = (struct xt_ext){p, len, FREE_DIRTY};
  atomic_store_explicit(&a->owed, OWED_NOW, memory_order_relaxed);
}

/* [P, P+LEN) is being allocated (its block owes its poison: the extent's
 * tag is FREE_DIRTY): what STALE_LAST holds outside it pays now. */
static void stale_last_cut(struct emu_arena *a, uintptr_t p, size_t len) {
  for (int i = 0; i < 2; i++) {
    uintptr_t k = a->stale_last[i].key, e = k + a->stale_last[i].len;
    if (!a->stale_last[i].len || k >= p + len || e <= p)
      continue;
    a->stale_last[i].len = 0;
    if (k < p)
      arena_fill(a, k, p - k, 1);
    if (e > p + len)
      arena_fill(a, p + len, e - p - len, 1);
  }
}

/* ------------------------------------------------------- free extents */

/* Freed block N's extent goes back into FREE with TAG; N to the pool. */
static void free_block(struct emu_arena *a, struct anode *n,
                       unsigned long tag) {
  arena_free_insert(a, n->key, n->len, tag);
  apool_put(&a->pool, n);
}

/* Give the oldest quarantined block back to FREE.  0 if one was. */
static int quar_release_one(struct emu_arena *a) {
  struct anode *n = fifo_pop(&a->quar);
  if (!n)
    return -1;
  if (arena_is_check(a) && arena_body_len(n) <= EMU_CHECK_KEEP_MAX)
    a->quar_kept -= arena_body_len(n);
  if (!arena_is_check(a)) {
    /* OMPEMU_QUARANTINE: the pages come back readable, poisoned. */
    mprotect((void *)n->key, n->len, PROT_READ | PROT_WRITE);
    if (a->flags & ARENA_LAZY)
      stale_add(a, n->key, n->len);
    else
      arena_fill(a, n->key, n->len, lazy_asan(a));
  }
  /* Check mode: the pages stay PROT_NONE (or read-write until the next
   * kernel, arena_protect.c) until allocated, or until an allocation
   * opens them ahead of itself (make_accessible, with guard markers). */
  free_block(a, n, FREE_DIRTY);
  return 0;
}

/* Check mode: the quarantine holds more than its bound by count
 * (BY_COUNT) or by the bytes its small blocks keep. */
static int quar_over(const struct emu_arena *a, int by_count) {
  return by_count ? a->quar.n > EMU_CHECK_QUARANTINE_MAX
                  : a->quar_kept > EMU_CHECK_QUARANTINE_KEPT;
}

/* Check mode: give the oldest quarantined block back to FREE, and the
 * blocks after it in the FIFO that follow it in memory while the bound
 * (quar_over BY_COUNT) still wants blocks given back: a batch freed in a
 * row goes back with one insertion into FREE, not one per block (the
 * same free extents either way). */
static void quar_release_run(struct emu_arena *a, int by_count) {
  struct anode *n = fifo_pop(&a->quar);
  if (!n)
    return;
  uintptr_t key = n->key;
  size_t len = n->len;
  for (;;) {
    if (arena_body_len(n) <= EMU_CHECK_KEEP_MAX)
      a->quar_kept -= arena_body_len(n);
    apool_put(&a->pool, n);
    struct anode *h = a->quar.head;
    if (!h || h->key != key + len || !quar_over(a, by_count))
      break;
    n = fifo_pop(&a->quar);
    len += n->len;
  }
  arena_free_insert(a, key, len, FREE_DIRTY);
}

/* Check mode: the quarantine bounded.  By count, as each quarantined
 * block may keep a mapping of its own; by the bytes of the pages small
 * blocks keep, so that a loop that frees small blocks reuses pages still
 * in the cache and faulted in, not fresh ones (the first
 * EMU_CHECK_QUARANTINE_KEPT bytes of a run are fresh pages).  Given back
 * EMU_CHECK_RELEASE_BATCH at a time, so that blocks of one layout freed in
 * a row come back as one free extent, which one mprotect opens
 * (make_accessible). */
static void quar_bound(struct emu_arena *a) {
  if (a->quar.n >= EMU_CHECK_QUARANTINE_MAX + EMU_CHECK_RELEASE_BATCH)
    while (quar_over(a, 1))
      quar_release_run(a, 1);
  if (a->quar_kept >= EMU_CHECK_QUARANTINE_KEPT + EMU_CHECK_RELEASE_BATCH * PAGE)
    while (quar_over(a, 0))
      quar_release_run(a, 0);
}

/* Give the oldest cooling block back to FREE.  0 if one was. */
static int cool_release_one(struct emu_arena *a) {
  struct anode *n = fifo_pop(&a->cool);
  if (!n)
    return -1;
  free_block(a, n, n->born);
  return 0;
}

/* Hold the freed extent N (its tag in N->born) back, or give it back at
 * once without a delay, then end the delay of the blocks that have waited
 * long enough. */
static void cool_insert(struct emu_arena *a, struct anode *n) {
  if (!a->cool_max_blocks || n->len > a->cool_max_bytes) {
    free_block(a, n, n->born);
    return;
  }
  fifo_push(&a->cool, n);
  while (a->cool.n > a->cool_max_blocks || a->cool.bytes > a->cool_max_bytes)
    cool_release_one(a);
}

/* ------------------------------------------------------------ create */

/* 1 if no mapping of /proc/self/maps overlaps [LO, HI); else 0 with the
 * first overlapping mapping in *OLO, *OHI. */
static int range_is_free(uintptr_t lo, uintptr_t hi, uintptr_t *olo,
                         uintptr_t *ohi) {
  *olo = *ohi = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return 0;
  char line[512];
  int free_ = 1;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    if (sscanf(line, "%lx-%lx", &a, &b) == 2 && a < hi && b > lo) {
      *olo = a;
      *ohi = b;
      free_ = 0;
      break;
    }
  }
  fclose(f);
  return free_;
}

/* Reserve [BASE, BASE+SPAN) with PROT; 0 or -1 with a message. */
static int reserve(const char *what, int dev, uintptr_t base, size_t span,
                   int prot) {
  int fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void *m = mmap((void *)base, span, prot, fl | MAP_FIXED_NOREPLACE, -1, 0);
  if (m == MAP_FAILED) {
    int e = errno;
    ompemu_error("emu", "device %d: cannot reserve the %s range [" OMPEMU_PTR
                 ", " OMPEMU_PTR "): %s%s", dev, what, OMPEMU_P(base),
                 OMPEMU_P(base + span), strerror(e),
                 e == EEXIST ? " (something else is mapped there)" : "");
    return -1;
  }
  if ((uintptr_t)m == base)
    return 0;
  /* A kernel (or valgrind) without MAP_FIXED_NOREPLACE took the address
   * as a hint.  Check in /proc/self/maps that the range is free and take
   * it with MAP_FIXED; the base never changes. */
  munmap(m, span);
  m = MAP_FAILED;
  uintptr_t lo, hi;
  if (range_is_free(base, base + span, &lo, &hi))
    m = mmap((void *)base, span, prot, fl | MAP_FIXED, -1, 0);
  if (m == (void *)base)
    return 0;
  if (m != MAP_FAILED)
    munmap(m, span);
  ompemu_error("emu", "device %d: cannot reserve the %s range [" OMPEMU_PTR
               ", " OMPEMU_PTR "): the kernel offered another address and "
               "[" OMPEMU_PTR ", " OMPEMU_PTR ") is mapped there", dev, what,
               OMPEMU_P(base), OMPEMU_P(base + span), OMPEMU_P(lo),
               OMPEMU_P(hi));
  return -1;
}

struct emu_arena *arena_create(const char *what, int dev, uintptr_t base,
                               size_t capacity, size_t align) {
  return arena_create_ex(what, dev, base, capacity, align, 0, capacity);
}

struct emu_arena *arena_create_ex(const char *what, int dev, uintptr_t base,
                                  size_t capacity, size_t align,
                                  unsigned flags, size_t span) {
  if (flags & ARENA_CHECK)
    flags |= ARENA_LAZY;
  if (align == 0 || (align & (align - 1)) || capacity == 0 ||
      span < capacity || span % PAGE || base % PAGE) {
    ompemu_error("emu", "device %d: bad %s arena parameters (base " OMPEMU_PTR
                 ", capacity %zu, span %zu, align %zu)", dev, what,
                 OMPEMU_P(base), capacity, span, align);
    return NULL;
  }
  struct emu_arena *a = calloc(1, sizeof *a);
  if (!a) {
    ompemu_error("emu", "device %d: out of host memory for the %s arena", dev,
                 what);
    return NULL;
  }
  int prot = flags & ARENA_CHECK ? PROT_NONE : PROT_READ | PROT_WRITE;
  if (reserve(what, dev, base, span, prot) != 0) {
    free(a);
    return NULL;
  }
  biaslock_init(&a->lock);
  snprintf(a->what, sizeof a->what, "%s", what);
  a->dev = dev;
  a->base = base;
  a->capacity = capacity;
  a->span = span;
  a->align = align;
  a->flags = flags;
  a->poison = flags & ARENA_CHECK ? EMU_POISON_CHECK : EMU_POISON_DEFAULT;
  a->pending.next = a->pending.prev = &a->pending;
  size_t gran = flags & ARENA_CHECK ? PAGE : align;
  if (abits_init(&a->starts, base, span, gran) != 0 ||
      aslots_init(&a->bystart, base, span, gran) != 0) {
    ompemu_error("emu", "device %d: out of host memory for the %s arena", dev,
                 what);
    abits_release(&a->starts);
    aslots_release(&a->bystart);
    munmap((void *)base, span);
    free(a);
    return NULL;
  }
  int q = 0;
  if (!(flags & ARENA_CHECK))
    ompemu_env_bool("OMPEMU_QUARANTINE", 0, &q);
  a->quarantine = q;
  if (flags & ARENA_CHECK) {
    arena_marks_init(a);
    arena_side_init(a);
  }
  /* Check mode: the first page guards the first block. */
  uintptr_t first = flags & ARENA_CHECK ? base + PAGE : base;
  if (xt_insert(&a->free, first, base + span - first, FREE_FRESH) != 0) {
    ompemu_error("emu", "device %d: out of host memory for the %s arena", dev,
                 what);
    abits_release(&a->starts);
    aslots_release(&a->bystart);
    munmap((void *)base, span);
    free(a->marks);
    arena_unprot_release(a);
    free(a->side);
    free(a);
    return NULL;
  }
  return a;
}

void arena_destroy(struct emu_arena *a) {
  if (!a)
    return;
  /* ASan: only what was handed out can hold poison.  Unpoisoning the whole
   * span writes its shadow (2 GiB for check mode's 16 GiB window): seconds
   * and 2 GiB of memory at each exit, minutes on a loaded machine. */
  if (a->hwm > a->base)
    asan_unpoison((void *)a->base, a->hwm - a->base);
  munmap((void *)a->base, a->span);
  biaslock_destroy(&a->lock);
  abits_release(&a->starts);
  aslots_release(&a->bystart);
  xt_clear(&a->free);
  apool_release(&a->pool);
  free(a->marks);
  arena_unprot_release(a);
  arena_donors_release(a);
  free(a->side);
  free(a);
}

void arena_set_reuse_delay(struct emu_arena *a, size_t max_blocks,
                           size_t max_bytes) {
  biaslock_lock(&a->lock);
  a->cool_max_blocks = max_blocks;
  a->cool_max_bytes = max_bytes;
  biaslock_unlock(&a->lock);
}

/* ------------------------------------------------------------- alloc */

/* Layout of a block of SIZE: extent length, body (pages or aligned
 * length) and the block's offset in the extent. */
struct layout {
  size_t len, body, offset;
  int guarded;
};

static struct layout layout_of(const struct emu_arena *a, size_t size) {
  struct layout l = {0, 0, 0, 0};
  if (arena_is_check(a)) {
    /* The block ends where its guard page starts, so that a read just
     * past its end faults: aligned only to the largest power of two
     * dividing its size (16 at most).  An array of T has a size that
     * alignof(T) divides, so its elements stay aligned; 8 for every block
     * left 4 bytes of slack after an odd number of floats or ints, where
     * a read of the element past the end read the poison unseen. */
    size_t al = size ? size & -size : 16;
    if (al > 16)
      al = 16;
    size_t bsize = round_up(size ? size : 1, al);
    l.body = round_up(bsize, PAGE);
    l.offset = l.body - bsize;
    l.guarded = a->guarded < EMU_CHECK_GUARDED_MAX && !a->no_maps;
    l.len = l.body + (l.guarded ? PAGE : 0);
    return l;
  }
  size_t al = a->quarantine && a->align < PAGE ? PAGE : a->align;
  size_t want = size ? size : 1;
  /* ASan: a data block whose size leaves less than EMU_ASAN_REDZONE bytes
   * before the alignment gets more, so that a read just past its end
   * lands in poisoned slack, not in the next block. */
  if ((a->flags & ARENA_LAZY) && asan_present() &&
      round_up(want, al) - want < EMU_ASAN_REDZONE)
    want += EMU_ASAN_REDZONE;
  l.len = l.body = round_up(want, al);
  return l;
}

/* Check mode: make the body of the extent at P read-write and its guard
 * inaccessible.  Pages of freed blocks not yet protected (arena_protect.c)
 * need no system call.  A block without a guard page opens up to
 * EMU_CHECK_AHEAD bytes of the free extent after it (up to FEND) in the
 * same call: the next unguarded blocks, which follow it, need none
 * either, and those pages are protected again before the next kernel.
 * With guard markers (arena_protect.c) never-allocated pages need no
 * call (they are armed), and a block opens the free extent after it
 * below HWM (pages of blocks the quarantine gave
 * back), up to EMU_CHECK_REOPEN bytes, and remembers them (OPEN): their
 * guard pages keep their markers, so the blocks allocated there next, in
 * the same layout, need no call.  Those pages stay read-write, holding
 * the poison, until allocated: their blocks left the quarantine
 * (quar_bound). */
static int make_accessible(struct emu_arena *a, uintptr_t p, uintptr_t fend,
                           const struct layout *l, size_t *clean) {
  int guard_rw = 0;
  *clean = 0;
  size_t rw = a->nunprot ? arena_unprot_cut(a, p, l->len, l->body, clean,
                                           &guard_rw)
                        : 0;
  uintptr_t e = p + l->len;
  if (a->marks) {
    /* Never-allocated pages are armed (read-write, markers): the body's
     * part above HWM needs its markers taken off, no mprotect. */
    if (arena_marks_arm(a, e) != 0)
      return -1;
    int r = arena_marks_clear(a, p, l->body);
    if (r < 0 || (l->guarded && arena_mark_set(a, p + l->body) != 0))
      return -1;
    if (r) /* pages that were guards read as zeros */
      *clean = 0;
    uintptr_t h = a->hwm > p ? a->hwm : p;
    if (p + l->body > h)
      rw += p + l->body - h;
    /* Pages opened ahead by an earlier allocation: read-write still.  The
     * block takes them out of OPEN (only free pages are in it). */
    if (p < a->open_hi && e > a->open_lo) {
      uintptr_t lo = p > a->open_lo ? p : a->open_lo;
      uintptr_t hi = p + l->body < a->open_hi ? p + l->body : a->open_hi;
      if (hi > lo)
        rw += hi - lo;
      if (p <= a->open_lo)
        a->open_lo = e < a->open_hi ? e : a->open_hi;
      else
        a->open_hi = p;
    }
    guard_rw = 0; /* the marker guards it */
  }
  if (guard_rw &&
      mprotect((void *)(p + l->body), l->len - l->body, PROT_NONE) != 0) {
    if (errno != ENOMEM)
      return -1;
    arena_out_of_maps(a); /* the guard stays read-write */
  }
  if (rw >= l->body)
    return 0;
  size_t ahead = 0;
  unsigned how = UNPROT_FRESH;
  if (a->marks) {
    if (e < a->hwm) {
      uintptr_t lim = fend < a->hwm ? fend : a->hwm;
      ahead = lim - e < EMU_CHECK_REOPEN ? lim - e : EMU_CHECK_REOPEN;
      how = 0;
    }
  } else if (!l->guarded) {
    ahead = fend - e < EMU_CHECK_AHEAD ? fend - e : EMU_CHECK_AHEAD;
  }
  if (ahead) {
    size_t c;
    int g;
    (void)arena_unprot_cut(a, e, ahead, ahead, &c, &g);
  }
  /* With a marker the guard page opens with the body: one mapping. */
  size_t open = ahead || a->marks ? l->len + ahead : l->body;
  if (mprotect((void *)p, open, PROT_READ | PROT_WRITE) != 0) {
    if (errno != ENOMEM)
      return -1;
    arena_out_of_maps(a); /* opens what was allocated before: try again */
    if (mprotect((void *)p, open, PROT_READ | PROT_WRITE) != 0)
      return -1;
  }
  /* Without markers, a guard page on fresh ground is marked
   * MADV_DONTDUMP: a mapping of its own that never merges with the bodies
   * beside it, so a block of the same layout allocated there again
   * changes the protection of exactly one mapping, without splitting and
   * merging (2 us less per allocation here).  Only a hint: nothing
   * depends on it.  At most twice as many pages as the quarantine holds
   * blocks are ever marked (enough for a loop that cycles through it), as
   * each may stay a mapping of its own and the kernel limits their
   * number. */
  if (l->guarded && !a->marks && !a->no_maps && p + l->len > a->hwm &&
      a->dontdump < 2 * EMU_CHECK_QUARANTINE_MAX &&
      madvise((void *)(p + l->body), PAGE, MADV_DONTDUMP) == 0)
    a->dontdump++;
  if (ahead && how == 0) { /* free pages the quarantine gave back */
    a->open_lo = e;
    a->open_hi = e + ahead;
  } else if (ahead) {
    arena_unprot_add(a, e, ahead, how);
  }
  return 0;
}

void *arena_alloc(struct emu_arena *a, size_t size) {
  if (size > a->capacity)
    goto full_unlocked;
  biaslock_lock(&a->lock);
  size_t charge = charge_of(a, size);
  if (a->in_use + charge > a->capacity)
    goto full;
  struct layout l = layout_of(a, size);
  struct xt_ext f;
  while (arena_free_first_fit(a, l.len, &f) != 0)
    if (cool_release_one(a) != 0 && quar_release_one(a) != 0)
      goto full;
  struct anode *n = apool_get(&a->pool);
  if (!n)
    goto full;
  uintptr_t p = f.key;
  /* The block's first line, which the first copy (or its poison) writes
   * next: a prefetch never faults, whatever the protection. */
  __builtin_prefetch((void *)(p + l.offset), 1);
  /* Bytes of the block's body that hold the poison already. */
  size_t clean = 0;
  if (!arena_is_check(a) && f.tag == atomic_load_explicit(&a->settles,
                                                          memory_order_relaxed) &&
      p + l.len <= a->hwm)
    clean = l.body;
  if (arena_is_check(a) &&
      make_accessible(a, p, f.key + f.len, &l, &clean) != 0) {
    ompemu_error("emu", "device %d: cannot make the %s block [" OMPEMU_PTR
                 ", " OMPEMU_PTR ") accessible: %s", a->dev, a->what,
                 OMPEMU_P(p), OMPEMU_P(p + l.body), strerror(errno));
    apool_put(&a->pool, n);
    goto full;
  }
  /* Pages moved in hold a freed block's bytes: the poison is owed. */
  if (a->spare && l.body > EMU_CHECK_KEEP_MAX &&
      arena_donor_take(a, p, l.body))
    clean = 0;
  n->key = p;
  n->len = l.len;
  n->off = (uint32_t)l.offset;
  n->size = size;
  n->flags = l.guarded ? ANODE_GUARDED : 0;
  n->born = atomic_load_explicit(&a->settles, memory_order_relaxed);
  aslots_set(&a->bystart, p, n);
  arena_free_take(a, &f, l.len);
  abits_set(&a->starts, p);
  a->in_use += charge;
  a->guarded += l.guarded;
  if (p + l.len > a->hwm)
    a->hwm = p + l.len;
  if (a->stale)
    stale_cut(a, p, l.len);
  if (a->stale_last[0].len || a->stale_last[1].len)
    stale_last_cut(a, p, l.len);
  if (a->flags & ARENA_LAZY) {
    if (clean < l.body) /* else every byte holds the poison already */
      arena_pending_link(a, n);
    /* ASan: the block is usable, its slack is not. */
    asan_unpoison((void *)anode_start(n), size);
    asan_poison((void *)p, l.offset);
    asan_poison((void *)(anode_start(n) + size), l.body - l.offset - size);
  } else {
    if (l.len >= PAGE && p % PAGE == 0 && l.len % PAGE == 0)
      mprotect((void *)p, l.len, PROT_READ | PROT_WRITE);
    arena_fill(a, p, l.len, 0);
  }
  biaslock_unlock(&a->lock);
  return (void *)anode_start(n);
full:
  biaslock_unlock(&a->lock);
full_unlocked:
  ompemu_trace(2, "emu", "device %d: %s arena cannot hold %zu more bytes "
               "(%zu of %zu in use)", a->dev, a->what, size, a->in_use,
               a->capacity);
  return NULL;
}

/* -------------------------------------------------------------- free */

int arena_free(struct emu_arena *a, void *ptr) {
  uintptr_t p = (uintptr_t)ptr;
  /* Lines a free of a small block writes, fetched while the lock is taken
   * and the node looked up: the block's first (its poison, off limits to
   * ASan: a prefetch is no access) and its slot in BYSTART. */
  if (p >= a->base && p < a->base + a->span) {
    __builtin_prefetch(ptr, 1);
    __builtin_prefetch(&a->bystart.v[(p - a->base) / a->bystart.gran], 1);
  }
  biaslock_lock(&a->lock);
  struct anode *n = arena_extent_of(a, p);
  if (!n || anode_start(n) != p) {
    struct anode *in = n;
    if (in) {
      uintptr_t s = anode_start(in);
      size_t z = in->size;
      biaslock_unlock(&a->lock);
      ompemu_error("emu", "device %d: free of " OMPEMU_PTR ", which is not "
                   "the start of a %s block: it lies inside the block ["
                   OMPEMU_PTR ", " OMPEMU_PTR ") of %zu bytes", a->dev,
                   OMPEMU_P(p), a->what, OMPEMU_P(s), OMPEMU_P(s + z), z);
    } else {
      int inside = p >= a->base && p < a->base + a->span;
      biaslock_unlock(&a->lock);
      ompemu_error("emu", "device %d: free of " OMPEMU_PTR ", which is not "
                   "a live %s block (%s)", a->dev, OMPEMU_P(p), a->what,
                   inside ? "inside the range but not allocated, or already "
                            "freed" : "outside the range");
    }
    return -1;
  }
  /* Odd until the block and its node are given back: lock-free checks
   * (arena_settled_unlocked) that saw it live retry under the lock. */
  unsigned long frees = atomic_load_explicit(&a->frees, memory_order_relaxed);
  atomic_store_explicit(&a->frees, frees + 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  int slack_ok = arena_check_slack(a, n, "when it was freed");
  int owed = (n->flags & ANODE_PENDING) != 0;
  aslots_set(&a->bystart, n->key, NULL);
  abits_clear(&a->starts, n->key);
  if (n->flags & ANODE_PENDING)
    arena_pending_unlink(a, n);
  a->in_use -= charge_of(a, n->size);
  size_t body = arena_body_len(n);
  if (a->flags & ARENA_LAZY) /* data arenas tell ASan; code is the loader's */
    asan_poison((void *)n->key, n->len);
  if (arena_is_check(a)) {
    /* Quarantined: PROT_NONE from the next kernel on (small blocks keep
     * their pages for reuse) or at once (large ones give them back). */
    a->guarded -= (n->flags & ANODE_GUARDED) != 0;
    unsigned held = arena_held_free(a, n, body,
                                    body <= EMU_CHECK_KEEP_MAX && !a->no_maps);
    if (body <= EMU_CHECK_KEEP_MAX) {
      /* With its slack intact, poisoning the block leaves pages that hold
       * only the poison: a block allocated on them owes none. */
      if (owed) /* never poisoned: fresh pages read as zeros */
        arena_fill(a, n->key, body, 1);
      else if (slack_ok)
        arena_fill(a, anode_start(n), n->size, 1);
      arena_unprot_add(a, n->key, body,
                       (slack_ok || owed ? UNPROT_CLEAN : 0) | held);
    }
    else if (a->no_maps)
      arena_fill(a, n->key, body, 1);
    else if (arena_donor_add(a, n->key, body) != 0 &&
             mmap((void *)n->key, body, PROT_NONE,
                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
                  -1, 0) == MAP_FAILED)
      arena_fill(a, n->key, body, 1); /* at least poisoned */
    fifo_push(&a->quar, n);
    if (body <= EMU_CHECK_KEEP_MAX)
      a->quar_kept += body;
    quar_bound(a);
  } else if (a->quarantine && n->key % PAGE == 0 && n->len % PAGE == 0) {
    arena_fill(a, n->key, n->len, lazy_asan(a));
    mprotect((void *)n->key, n->len, PROT_NONE);
    fifo_push(&a->quar, n);
  } else {
    if (!(a->flags & ARENA_LAZY) && a->align >= PAGE &&
        n->key % PAGE == 0 && n->len % PAGE == 0)
      /* Code blocks may have been left read-only or executable by the
       * loader; live data blocks are always read-write. */
      mprotect((void *)n->key, n->len, PROT_READ | PROT_WRITE);
    unsigned long now = atomic_load_explicit(&a->settles,
                                             memory_order_relaxed);
    unsigned long tag = FREE_DIRTY;
    if ((a->flags & ARENA_LAZY) && n->len >= EMU_LAZY_FREE_MIN) {
      stale_add(a, n->key, n->len);
    } else if ((a->flags & ARENA_LAZY) && !owed && n->born == now) {
      /* Only copies wrote the block since its poison was written (no
       * kernel ran since its allocation), and they stay inside its SIZE
       * bytes: its slack holds the poison still. */
      arena_fill(a, anode_start(n), n->size, 1);
      tag = now;
    } else if ((a->flags & ARENA_LAZY) && biaslock_held_fast(&a->lock)) {
      /* One thread uses the arena.  With several, the next kernel would
       * take the lock to pay (arena_settle), where they contend. */
      stale_last_set(a, n->key, n->len);
    } else {
      arena_fill(a, n->key, n->len, lazy_asan(a));
      if (a->flags & ARENA_LAZY)
        tag = now;
    }
    n->born = tag;
    cool_insert(a, n);
  }
  atomic_store_explicit(&a->frees, frees + 2, memory_order_release);
  biaslock_unlock(&a->lock);
  return 0;
}
