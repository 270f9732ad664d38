/* Check mode: lazy protection of freed blocks (see arena.h, ARENA_CHECK),
 * and the guard markers that stand for guard pages where the kernel has
 * them (arena_marks_*, below).
 * A freed block's pages stay read-write and populated (the UNPROT treap,
 * and the array of ranges waiting to go into it), holding the poison, so
 * that freeing costs no system call and an allocation that lands on them
 * needs none either.  They are made
 * PROT_NONE together (arena_unprot_flush, adjacent ranges in one call)
 * before a kernel that is given a pointer into them (arena_note_kernel),
 * before the next kernel when the freed block's address was ever copied
 * to the device (arena_note_pointers: an attached pointer, a struct
 * member, a device pointer the program stored), before the kernel
 * EMU_CHECK_PROTECT_EVERY launches after the oldest of them was freed,
 * and before any kernel while pages never allocated were opened ahead
 * (arena.c).  What is left to the delay: a block only its kernels'
 * arguments pointed to, whose address a kernel stored in device memory
 * itself.  Making pages inaccessible costs a TLB
 * shootdown across the process's running threads (an IPI each, about
 * 10 us on a 2-vCPU VM): once per kernel it was most of what check mode
 * cost.  Only device code can touch freed device memory unchecked
 * (copies are checked against the live blocks).  The order of frees and
 * launches decides when pages are protected, so a run faults at the same
 * point every time.  Callers hold the arena's lock. */
#include "config.h"
#include "arena_internal.h"
#include "trace.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#define MADV_GUARD_REMOVE 103
#endif

static void release_one(struct anode *s, void *arg);
static void unprot_settle(struct emu_arena *a);

/* Guard markers: a guard page made with MADV_GUARD_INSTALL faults
 * whatever the protection of its mapping, and is no mapping of its own.
 * So a run of blocks with their guard pages can be opened with one
 * mprotect (arena.c, make_accessible), and a block that lands where a
 * block of the same layout was finds its guard page in place: neither
 * costs a system call.  Without them (older kernels, valgrind) a guard
 * page is a PROT_NONE page, a mapping of its own, and opening a block
 * takes a call of its own.  The same requests give the same addresses
 * either way. */
void arena_marks_init(struct emu_arena *a) {
  size_t words = (a->span / PAGE + 63) / 64;
  uint64_t *m = calloc(words, sizeof *m);
  if (!m)
    return;
  /* The first page guards the first block (arena_create_ex). */
  if (madvise((void *)a->base, PAGE, MADV_GUARD_INSTALL) != 0) {
    free(m);
    return;
  }
  m[0] = 1;
  a->marks = m;
  a->armed = a->base + PAGE;
}

/* Never-allocated pages with a marker each fault as PROT_NONE ones do,
 * and need no mprotect when a block is allocated on them. */
int arena_marks_arm(struct emu_arena *a, uintptr_t end) {
  if (end <= a->armed)
    return 0;
  uintptr_t lim = a->base + a->span;
  uintptr_t to = (end + EMU_CHECK_ARM - 1) / EMU_CHECK_ARM * EMU_CHECK_ARM;
  if (to > lim)
    to = lim;
  size_t len = to - a->armed;
  if (madvise((void *)a->armed, len, MADV_GUARD_INSTALL) != 0 ||
      mprotect((void *)a->armed, len, PROT_READ | PROT_WRITE) != 0)
    return -1;
  for (size_t j = (a->armed - a->base) / PAGE; j < (to - a->base) / PAGE; j++)
    a->marks[j / 64] |= (uint64_t)1 << (j % 64);
  a->armed = to;
  return 0;
}

int arena_mark_set(struct emu_arena *a, uintptr_t g) {
  size_t i = (g - a->base) / PAGE;
  uint64_t bit = (uint64_t)1 << (i % 64);
  if (a->marks[i / 64] & bit)
    return 0;
  if (madvise((void *)g, PAGE, MADV_GUARD_INSTALL) != 0)
    return -1;
  a->marks[i / 64] |= bit;
  return 0;
}

int arena_marks_clear(struct emu_arena *a, uintptr_t p, size_t len) {
  size_t i = (p - a->base) / PAGE, e = i + len / PAGE;
  int any = 0;
  for (size_t j = i; j < e;) {
    if (j % 64 == 0 && e - j >= 64 && !a->marks[j / 64]) {
      j += 64;
      continue;
    }
    if (a->marks[j / 64] & (uint64_t)1 << (j % 64)) {
      any = 1;
      break;
    }
    j++;
  }
  if (!any)
    return 0;
  if (madvise((void *)p, len, MADV_GUARD_REMOVE) != 0)
    return -1;
  for (size_t j = i; j < e; j++)
    a->marks[j / 64] &= ~((uint64_t)1 << (j % 64));
  return 1;
}

/* Each PROT_NONE range between accessible ones is a mapping of its own,
 * and the kernel limits a process's mappings (vm.max_map_count, 65530 by
 * default): tens of thousands of small blocks freed in a scattered order
 * reach it, and then mprotect fails with ENOMEM, both making freed pages
 * inaccessible and opening pages for a new block.  The arena then says so
 * once and gives page protection up: everything allocated so far becomes
 * read-write again (one mapping, where the limit allows it), freed blocks
 * stay accessible holding the poison, and new blocks get no guard page
 * (layout_of in arena.c).  The program runs on with the other checks. */
void arena_out_of_maps(struct emu_arena *a) {
  if (a->no_maps == 2)
    return;
  a->no_maps = 2;
  ompemu_warning("emu", "device %d: check: the process has no memory "
                 "mappings left (vm.max_map_count): from here on freed %s "
                 "blocks stay accessible (holding the poison) and blocks get "
                 "no guard page", a->dev, a->what);
  unprot_settle(a);
  atree_walk(a->unprot, release_one, a);
  a->unprot = NULL;
  a->nunprot = 0;
  a->unprot_urgent = 0;
  atomic_store_explicit(&a->unprot_due, 0, memory_order_relaxed);
  size_t used = a->hwm > a->base ? a->hwm - a->base : 0;
  if (used && mprotect((void *)a->base, used, PROT_READ | PROT_WRITE) != 0)
    mprotect((void *)a->base, a->span, PROT_READ | PROT_WRITE);
}

static void protect(struct emu_arena *a, uintptr_t p, size_t len) {
  if (!len || a->no_maps || mprotect((void *)p, len, PROT_NONE) == 0)
    return;
  if (errno == ENOMEM) {
    a->no_maps = 1; /* arena_out_of_maps once the caller's walk is done */
    return;
  }
  ompemu_error("emu", "device %d: check: cannot make the freed %s range ["
               OMPEMU_PTR ", " OMPEMU_PTR ") inaccessible: %s", a->dev,
               a->what, OMPEMU_P(p), OMPEMU_P(p + len), strerror(errno));
}

static unsigned long settles_now(struct emu_arena *a) {
  return atomic_load_explicit(&a->settles, memory_order_relaxed);
}

/* Freed ranges wait in an array (UNBUF, their pages marked in UNBITS)
 * before they go into the UNPROT treap: frees come in any order (a
 * program unmapping 100 000 blocks shuffled), and a treap insertion at a
 * random address missed the cache at most levels of the tree.  They go
 * in together, sorted, when a lookup may need them (unprot_settle): a
 * lookup of pages no waiting range holds needs only the tree.  A bit per
 * page, not per 64 KiB region: a loop that maps a block per launch
 * allocates the next block beside the one it just freed, and a bit per
 * region sent every allocation through a settle.  Most such ranges are
 * protected by a flush without ever going into the tree
 * (arena_unprot_flush).  The bitmap is calloc'd: only its words for the
 * part of the span in use are ever touched. */
#define UNBITS_SHIFT 12
/* Waiting ranges put in the tree one by one, at most. */
#define UNPROT_SORT_MIN 1024
/* Waiting ranges sorted in place (insertion sort), at most. */
#define UNPROT_INSERT_SORT_MAX 64

struct unwait {
  uintptr_t key;
  struct anode *n;
};

/* Set the bits of the regions of [P, P+LEN) (LEN > 0) in UNBITS, or clear
 * them (CLEAR). */
static void unbits_mark(struct emu_arena *a, uintptr_t p, size_t len,
                        int clear) {
  size_t i = (p - a->base) >> UNBITS_SHIFT;
  size_t e = (p + len - 1 - a->base) >> UNBITS_SHIFT;
  for (; i <= e; i++) {
    uint64_t bit = (uint64_t)1 << (i % 64);
    if (clear)
      a->unbits[i / 64] &= ~bit;
    else
      a->unbits[i / 64] |= bit;
  }
}

/* 1 if a waiting range may touch [P, P+LEN). */
static int unbits_any(const struct emu_arena *a, uintptr_t p, size_t len) {
  if (!a->nunbuf || !len)
    return 0;
  if (p < a->base || p + len - a->base > a->span)
    return 1;
  size_t i = (p - a->base) >> UNBITS_SHIFT;
  size_t e = (p + len - 1 - a->base) >> UNBITS_SHIFT;
  for (; i <= e; i++)
    if (a->unbits[i / 64] >> (i % 64) & 1)
      return 1;
  return 0;
}

/* Room for N more bytes of scratch (kept for the next time). */
static void *scratch(struct emu_arena *a, size_t n) {
  if (n > a->unscratch_bytes) {
    void *p = realloc(a->unscratch, n);
    if (!p)
      return NULL;
    a->unscratch = p;
    a->unscratch_bytes = n;
  }
  return a->unscratch;
}

/* Sort V (N entries) by key, TMP as large, 11 bits at a time from the
 * lowest bit that any key has set; the sorted copy is returned. */
static struct unwait *radix_sort(struct unwait *v, struct unwait *tmp,
                                 size_t n) {
  uintptr_t any = 0;
  for (size_t i = 0; i < n; i++)
    any |= v[i].key;
  unsigned shift = any ? (unsigned)__builtin_ctzll(any) : 64;
  for (; shift < 64 && any >> shift; shift += 11) {
    size_t count[2049] = {0};
    for (size_t i = 0; i < n; i++)
      count[(v[i].key >> shift & 2047) + 1]++;
    for (size_t d = 1; d <= 2048; d++)
      count[d] += count[d - 1];
    for (size_t i = 0; i < n; i++)
      tmp[count[v[i].key >> shift & 2047]++] = v[i];
    struct unwait *t = v;
    v = tmp;
    tmp = t;
  }
  return v;
}

struct gather {
  struct anode **v;
  size_t n;
};

static void gather_one(struct anode *s, void *arg) {
  struct gather *g = arg;
  g->v[g->n++] = s;
}

/* Put the waiting ranges (M of them, the tree holding N) in the tree at
 * once: sorted, merged with the tree's nodes in order and the tree built
 * again; 0 without memory for that. */
static int settle_sorted(struct emu_arena *a, size_t m, size_t n) {
  size_t need = m * sizeof(struct unwait) + 2 * (n + m) * sizeof(void *);
  char *mem = scratch(a, need);
  if (!mem)
    return 0;
  struct unwait *sorted = radix_sort(a->unbuf, (struct unwait *)mem, m);
  struct anode **all = (struct anode **)(mem + m * sizeof(struct unwait));
  struct gather g = {all + n + m, 0};
  atree_walk(a->unprot, gather_one, &g);
  size_t i = 0, j = 0;
  for (size_t k = 0; i < n || j < m; k++)
    all[k] = j == m || (i < n && g.v[i]->key < sorted[j].n->key)
                 ? g.v[i++]
                 : sorted[j++].n;
  atree_build(&a->unprot, all, n + m, all + n + m);
  return 1;
}

/* Every waiting range into the UNPROT tree. */
static void unprot_settle(struct emu_arena *a) {
  size_t m = a->nunbuf, n = a->nunprot - m;
  if (!m)
    return;
  for (size_t k = 0; k < m; k++)
    unbits_mark(a, a->unbuf[k].key, a->unbuf[k].n->len, 1);
  /* Few ranges (the tree's top is in the cache; sorting has a fixed
   * cost), or few into a large tree: one by one. */
  if (m < UNPROT_SORT_MIN || m * 4 < n || !settle_sorted(a, m, n))
    for (size_t k = 0; k < m; k++)
      atree_insert(&a->unprot, a->unbuf[k].n);
  a->nunbuf = 0;
}

/* S waits for the tree; 0 without memory for that. */
static int unprot_wait(struct emu_arena *a, struct anode *s) {
  if (!s->len || s->key < a->base || s->key + s->len - a->base > a->span)
    return 0;
  if (!a->unbits) {
    size_t regions = ((a->span - 1) >> UNBITS_SHIFT) + 1;
    a->unbits = calloc((regions + 63) / 64, sizeof *a->unbits);
    if (!a->unbits)
      return 0;
  }
  if (a->nunbuf == a->capunbuf) {
    size_t nc = a->capunbuf ? 2 * a->capunbuf : 256;
    struct unwait *v = realloc(a->unbuf, nc * sizeof *v);
    if (!v)
      return 0;
    a->unbuf = v;
    a->capunbuf = nc;
  }
  a->unbuf[a->nunbuf++] = (struct unwait){s->key, s};
  unbits_mark(a, s->key, s->len, 0);
  return 1;
}

void arena_unprot_release(struct emu_arena *a) {
  free(a->unbuf);
  free(a->unbits);
  free(a->unscratch);
}

void arena_unprot_add(struct emu_arena *a, uintptr_t p, size_t len,
                      unsigned how) {
  if (a->no_maps)
    return; /* stays read-write, poisoned */
  struct anode *s = apool_get(&a->pool);
  if (!s) { /* no memory to remember it: protect now */
    protect(a, p, len);
    if (a->no_maps)
      arena_out_of_maps(a);
    return;
  }
  if (!a->nunprot) {
    a->unprot_since = settles_now(a);
    atomic_store_explicit(&a->unprot_due,
                          a->unprot_since + EMU_CHECK_PROTECT_EVERY,
                          memory_order_relaxed);
  }
  if (how & (UNPROT_FRESH | UNPROT_URGENT))
    a->unprot_urgent = 1;
  if (a->unprot_urgent) /* the next kernel protects them */
    atomic_store_explicit(&a->owed, OWED_NOW, memory_order_relaxed);
  else if (!atomic_load_explicit(&a->owed, memory_order_relaxed))
    atomic_store_explicit(&a->owed, OWED_UNPROT, memory_order_relaxed);
  s->key = p;
  s->len = len;
  s->flags = how & UNPROT_CLEAN ? ANODE_CLEAN : 0;
  s->born = settles_now(a);
  if (!unprot_wait(a, s))
    atree_insert(&a->unprot, s);
  a->nunprot++;
  if (a->nunprot > EMU_CHECK_UNPROT_MAX)
    arena_unprot_flush(a);
}

/* Insert [P, P+LEN) with FLAGS and BORN reusing node S if given;
 * protect it without memory. */
static void reinsert(struct emu_arena *a, struct anode *s, uintptr_t p,
                     size_t len, unsigned flags, unsigned long born) {
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
  s->born = born;
  atree_insert(&a->unprot, s);
  a->nunprot++;
}

size_t arena_unprot_cut(struct emu_arena *a, uintptr_t p, size_t len,
                        size_t body, size_t *clean, int *guard_rw) {
  uintptr_t e = p + len, be = p + body;
  size_t covered = 0;
  *clean = 0;
  *guard_rw = 0;
  if (unbits_any(a, p, len))
    unprot_settle(a);
  struct anode *s = a->unprot ? atree_floor(a->unprot, p) : NULL;
  if (a->unprot && (!s || s->key + s->len <= p))
    s = atree_ceil(a->unprot, p);
  while (s && s->key < e) {
    uintptr_t sk = s->key, se = s->key + s->len;
    unsigned fl = s->flags;
    unsigned long born = s->born;
    atree_remove(&a->unprot, sk);
    a->nunprot--;
    uintptr_t lo = sk > p ? sk : p, hi = se < e ? se : e;
    if (lo < be) {
      size_t in = (hi < be ? hi : be) - lo;
      covered += in;
      /* Clean only if no kernel could have written it since. */
      if ((fl & ANODE_CLEAN) && born == settles_now(a))
        *clean += in;
    }
    if (hi > be)
      *guard_rw = 1;
    struct anode *spare = s;
    if (sk < p) {
      reinsert(a, spare, sk, p - sk, fl, born);
      spare = NULL;
    }
    if (se > e) {
      reinsert(a, spare, e, se - e, fl, born);
      spare = NULL;
    }
    if (spare)
      apool_put(&a->pool, spare);
    /* Ranges never overlap: none after S starts below E. */
    s = se >= e ? NULL : atree_ceil(a->unprot, se);
  }
  if (a->no_maps)
    arena_out_of_maps(a);
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
  const struct anode *n = aslots_get(&a->bystart, k);
  return n && k + n->len > lo;
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

/* Sort the waiting ranges by address in place (a loop's frees come in
 * address order mostly: insertion sort) or through scratch memory; 0
 * without memory for that. */
static int unbuf_sort(struct emu_arena *a) {
  size_t m = a->nunbuf;
  struct unwait *v = a->unbuf;
  if (m > UNPROT_INSERT_SORT_MAX) {
    struct unwait *tmp = scratch(a, m * sizeof *tmp);
    if (!tmp)
      return 0;
    struct unwait *sorted = radix_sort(v, tmp, m);
    if (sorted != v)
      memcpy(v, sorted, m * sizeof *v);
    return 1;
  }
  for (size_t i = 1; i < m; i++) {
    struct unwait x = v[i];
    size_t j = i;
    for (; j && v[j - 1].key > x.key; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
  return 1;
}

/* The tree is empty: protect the waiting ranges straight from their
 * array, in address order (the calls the tree's walk would make), and
 * give their nodes back; 0 without memory to sort them. */
static int flush_waiting(struct emu_arena *a) {
  if (!unbuf_sort(a))
    return 0;
  struct flush_run r = {a, 0, 0};
  for (size_t k = 0; k < a->nunbuf; k++) {
    struct anode *s = a->unbuf[k].n;
    unbits_mark(a, s->key, s->len, 1);
    flush_one(s, &r);
  }
  protect(a, r.lo, r.hi - r.lo);
  for (size_t k = 0; k < a->nunbuf; k++)
    apool_put(&a->pool, a->unbuf[k].n);
  a->nunbuf = 0;
  return 1;
}

void arena_unprot_flush(struct emu_arena *a) {
  if (!a->unprot && a->nunbuf && flush_waiting(a)) {
    a->nunprot = 0;
    a->unprot_urgent = 0;
    atomic_store_explicit(&a->unprot_due, 0, memory_order_relaxed);
    if (a->no_maps)
      arena_out_of_maps(a);
    return;
  }
  unprot_settle(a);
  if (!a->unprot)
    return;
  struct flush_run r = {a, 0, 0};
  atree_walk(a->unprot, flush_one, &r);
  protect(a, r.lo, r.hi - r.lo);
  atree_walk(a->unprot, release_one, a);
  a->unprot = NULL;
  a->nunprot = 0;
  a->unprot_urgent = 0;
  atomic_store_explicit(&a->unprot_due, 0, memory_order_relaxed);
  if (a->no_maps)
    arena_out_of_maps(a);
}

void arena_unprot_before_kernel(struct emu_arena *a) {
  if (a->nunprot &&
      (a->unprot_urgent ||
       settles_now(a) - a->unprot_since >= EMU_CHECK_PROTECT_EVERY))
    arena_unprot_flush(a);
}

void arena_unprot_arg(struct emu_arena *a, uintptr_t p) {
  if (unbits_any(a, p, 1))
    unprot_settle(a);
  struct anode *s = atree_floor(a->unprot, p);
  if (s && p < s->key + s->len)
    arena_unprot_flush(a);
}
