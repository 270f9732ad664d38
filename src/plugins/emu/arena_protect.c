/* Check mode: lazy protection of freed blocks (see arena.h, ARENA_CHECK),
 * and the guard markers that stand for guard pages where the kernel has
 * them (arena_marks_*, below).
 * A freed block's pages stay read-write and populated (UNPROT: ranges
 * indexed by page, below), holding the poison, so
 * that freeing costs no system call and an allocation that lands on them
 * needs none either.  They are made
 * PROT_NONE together (arena_unprot_flush, adjacent ranges in one call)
 * before a kernel that is given a pointer into them (arena_note_kernel),
 * before the next kernel when the freed block's address was copied
 * to the device (arena_note_pointers: an attached pointer, a struct
 * member, a device pointer the program stored) and is still held there or
 * anywhere else a kernel can read (arena_holders.c), before the kernel
 * EMU_CHECK_PROTECT_EVERY launches after the oldest of them was freed,
 * and before any kernel while pages never allocated were opened ahead
 * (arena.c).  What is left to the delay: a block only its kernels'
 * arguments pointed to, whose address a kernel stored in device memory
 * itself (unless that block was copied to the device too).  Making pages inaccessible costs a TLB
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
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#define MADV_GUARD_REMOVE 103
#endif

static void unprot_clear(struct emu_arena *a);

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
  unprot_clear(a);
  size_t used = a->hwm > a->base ? a->hwm - a->base : 0;
  if (used && mprotect((void *)a->base, used, PROT_READ | PROT_WRITE) != 0)
    mprotect((void *)a->base, a->span, PROT_READ | PROT_WRITE);
}

/* [P, P+LEN) is inaccessible now: pages opened ahead (OPEN, free and
 * read-write until allocated, arena.c) that it covers are not open any
 * more.  A flush joins freed ranges across free pages, OPEN's among them;
 * a block later allocated there would otherwise take them for open and
 * fault on its first write (several host threads allocating and freeing
 * in turn made that happen). */
static void open_trim(struct emu_arena *a, uintptr_t p, size_t len) {
  uintptr_t e = p + len;
  if (e <= a->open_lo || p >= a->open_hi)
    return;
  if (p <= a->open_lo)
    a->open_lo = e < a->open_hi ? e : a->open_hi;
  else
    a->open_hi = p; /* the part above, if any, is left closed */
}

static void protect(struct emu_arena *a, uintptr_t p, size_t len) {
  if (!len || a->no_maps)
    return;
  if (mprotect((void *)p, len, PROT_NONE) == 0) {
    open_trim(a, p, len);
    return;
  }
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

/* The freed ranges still read-write (UNPROT) are indexed by page: a bit
 * per page of the span where one starts (UNSTARTS) and its index in UNV
 * by that page (UNIDX), so that an allocation finds the ranges its pages
 * overlap by looking at the bits of its own pages and of the UNLEN_MAX
 * bytes before them (one or two words; none overlap in the usual case)
 * and takes them out with a few stores, whatever their number.  UNV
 * holds the ranges themselves, unsorted (no node each: a range is
 * written once, beside the last one); they are sorted by address only
 * when they are protected (arena_unprot_flush): frees come in any order
 * (a program unmapping 100 000 blocks shuffled).  A treap by address
 * before (with an array of ranges waiting to go into it, and those
 * sorted in when an allocation fell on their pages) cost three walks of
 * the tree per allocation on a loop's reused pages: 750 instructions of
 * an enter+exit pair with 100 live blocks, a cache miss per level with
 * 10 000.  The bitmap is calloc'd and the index table mapped lazily: only
 * the parts for pages in use are ever touched. */
/* Ranges sorted in place (insertion sort), at most. */
#define UNPROT_INSERT_SORT_MAX 64

struct unwait {
  uintptr_t key;
  size_t len;
  unsigned long born; /* SETTLES when it was freed */
  unsigned clean;     /* it held only the poison then */
};

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

/* Sort V (N entries) by key, TMP as large, 11 bits at a time of the keys'
 * distance from the lowest, from the lowest bit that any has set (keys a
 * few MiB apart: one or two passes, not four); the sorted copy is
 * returned. */
static struct unwait *radix_sort(struct unwait *v, struct unwait *tmp,
                                 size_t n) {
  uintptr_t any = 0, min = UINTPTR_MAX;
  for (size_t i = 0; i < n; i++)
    if (v[i].key < min)
      min = v[i].key;
  for (size_t i = 0; i < n; i++)
    any |= v[i].key - min;
  unsigned shift = any ? (unsigned)__builtin_ctzll(any) : 64;
  for (; shift < 64 && any >> shift; shift += 11) {
    size_t count[2049] = {0};
    for (size_t i = 0; i < n; i++)
      count[((v[i].key - min) >> shift & 2047) + 1]++;
    for (size_t d = 1; d <= 2048; d++)
      count[d] += count[d - 1];
    for (size_t i = 0; i < n; i++)
      tmp[count[(v[i].key - min) >> shift & 2047]++] = v[i];
    struct unwait *t = v;
    v = tmp;
    tmp = t;
  }
  return v;
}

/* The page index of P in the span. */
static size_t page_of(const struct emu_arena *a, uintptr_t p) {
  return (p - a->base) / PAGE;
}

/* The highest page in [LO, HI] (page indexes, LO <= HI) where a range of
 * UNPROT starts, or SIZE_MAX. */
static size_t unstart_floor(const struct emu_arena *a, size_t lo, size_t hi) {
  size_t w = hi / 64, wl = lo / 64;
  uint64_t m = a->unstarts[w] & (~(uint64_t)0 >> (63 - hi % 64));
  for (;;) {
    if (w == wl)
      m &= ~(uint64_t)0 << (lo % 64);
    if (m)
      return w * 64 + 63 - (size_t)__builtin_clzll(m);
    if (w == wl)
      return SIZE_MAX;
    m = a->unstarts[--w];
  }
}

/* The index in UNV of the range that starts highest below E and ends
 * after P (P < E, both in the span), or SIZE_MAX. */
static size_t unprot_below(const struct emu_arena *a, uintptr_t p,
                           uintptr_t e) {
  size_t hi = page_of(a, e - 1);
  size_t back = a->unlen_max / PAGE, pp = page_of(a, p);
  size_t lo = pp > back ? pp - back : 0;
  size_t k = unstart_floor(a, lo, hi);
  if (k == SIZE_MAX)
    return SIZE_MAX;
  size_t i = a->unidx[k];
  const struct unwait *s = &a->unv[i];
  return s->key + s->len > p ? i : SIZE_MAX;
}

/* Room for one more range in UNV, with its index set up on first use; 0
 * without memory for that. */
static int unv_room(struct emu_arena *a) {
  if (!a->unstarts) {
    size_t pages = a->span / PAGE + 1;
    void *m = mmap(NULL, pages * sizeof *a->unidx, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
      return 0;
    a->unstarts = calloc((pages + 63) / 64, sizeof *a->unstarts);
    if (!a->unstarts) {
      munmap(m, pages * sizeof *a->unidx);
      return 0;
    }
    a->unidx = m;
  }
  if (a->nunprot < a->capunv)
    return 1;
  size_t nc = a->capunv ? 2 * a->capunv : 256;
  struct unwait *v = realloc(a->unv, nc * sizeof *v);
  if (!v)
    return 0;
  a->unv = v;
  /* Sorting them for a flush takes as much again: asked for now, so that
   * a flush never lacks it. */
  if (!scratch(a, nc * sizeof *v))
    return 0;
  a->capunv = nc;
  return 1;
}

/* R (inside the span, LEN > 0) into UNPROT; 0 without memory for that. */
static int unprot_put(struct emu_arena *a, struct unwait r) {
  if (!r.len || r.key < a->base || r.key + r.len - a->base > a->span ||
      !unv_room(a))
    return 0;
  size_t k = page_of(a, r.key);
  a->unidx[k] = (uint32_t)a->nunprot;
  a->unv[a->nunprot++] = r;
  a->unstarts[k / 64] |= (uint64_t)1 << (k % 64);
  if (r.len > a->unlen_max)
    a->unlen_max = r.len;
  return 1;
}

/* Range I out of UNPROT (the last one takes its place in UNV). */
static void unprot_take(struct emu_arena *a, size_t i) {
  size_t k = page_of(a, a->unv[i].key);
  a->unstarts[k / 64] &= ~((uint64_t)1 << (k % 64));
  if (i != --a->nunprot) {
    a->unv[i] = a->unv[a->nunprot];
    a->unidx[page_of(a, a->unv[i].key)] = (uint32_t)i;
  }
}

/* UNPROT is empty again: its state from the start. */
static void unprot_clear(struct emu_arena *a) {
  for (size_t i = 0; i < a->nunprot; i++) {
    size_t k = page_of(a, a->unv[i].key);
    a->unstarts[k / 64] &= ~((uint64_t)1 << (k % 64));
  }
  a->nunprot = 0;
  a->unlen_max = 0;
  a->unprot_urgent = 0;
  a->nsuspects = 0; /* protected: nothing to look at */
  atomic_store_explicit(&a->unprot_due, 0, memory_order_relaxed);
}

void arena_unprot_release(struct emu_arena *a) {
  free(a->unv);
  free(a->unstarts);
  if (a->unidx)
    munmap(a->unidx, (a->span / PAGE + 1) * sizeof *a->unidx);
  free(a->unscratch);
}

void arena_unprot_add(struct emu_arena *a, uintptr_t p, size_t len,
                      unsigned how) {
  if (a->no_maps)
    return; /* stays read-write, poisoned */
  struct unwait r = {p, len, settles_now(a), (how & UNPROT_CLEAN) != 0};
  if (!unprot_put(a, r)) { /* no memory to remember it: protect now */
    protect(a, p, len);
    if (a->no_maps)
      arena_out_of_maps(a);
    return;
  }
  if (a->nunprot == 1) {
    a->unprot_since = settles_now(a);
    atomic_store_explicit(&a->unprot_due,
                          a->unprot_since + EMU_CHECK_PROTECT_EVERY,
                          memory_order_relaxed);
  }
  if (how & (UNPROT_FRESH | UNPROT_URGENT))
    a->unprot_urgent = 1;
  /* The next kernel protects them, or looks whether it must. */
  if (a->unprot_urgent || a->nsuspects)
    atomic_store_explicit(&a->owed, OWED_NOW, memory_order_relaxed);
  else if (!atomic_load_explicit(&a->owed, memory_order_relaxed))
    atomic_store_explicit(&a->owed, OWED_UNPROT, memory_order_relaxed);
  if (a->nunprot > EMU_CHECK_UNPROT_MAX)
    arena_unprot_flush(a);
}

/* R back into UNPROT; protected without memory for that. */
static void reinsert(struct emu_arena *a, struct unwait r) {
  if (!unprot_put(a, r))
    protect(a, r.key, r.len);
}

size_t arena_unprot_cut(struct emu_arena *a, uintptr_t p, size_t len,
                        size_t body, size_t *clean, int *guard_rw) {
  uintptr_t e = p + len, be = p + body;
  size_t covered = 0;
  *clean = 0;
  *guard_rw = 0;
  if (!a->nunprot || !len || p < a->base || e - a->base > a->span)
    return 0;
  /* From the highest overlapping range down: a part left below P is the
   * last one, and one left above E starts at E, where none is looked for. */
  size_t i = unprot_below(a, p, e);
  while (i != SIZE_MAX) {
    struct unwait s = a->unv[i];
    uintptr_t sk = s.key, se = s.key + s.len;
    unprot_take(a, i);
    uintptr_t lo = sk > p ? sk : p, hi = se < e ? se : e;
    if (lo < be) {
      size_t in = (hi < be ? hi : be) - lo;
      covered += in;
      /* Clean only if no kernel could have written it since. */
      if (s.clean && s.born == settles_now(a))
        *clean += in;
    }
    if (hi > be)
      *guard_rw = 1;
    if (se > e)
      reinsert(a, (struct unwait){e, se - e, s.born, s.clean});
    if (sk < p)
      reinsert(a, (struct unwait){sk, p - sk, s.born, s.clean});
    /* Ranges never overlap: the next one down ends at or below SK. */
    i = sk > p ? unprot_below(a, p, sk) : SIZE_MAX;
  }
  if (!a->nunprot)
    a->unlen_max = 0;
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

static void flush_one(const struct unwait *s, void *arg) {
  struct flush_run *r = arg;
  if (r->hi != s->key &&
      (!r->hi || s->key - r->hi > JOIN_GAP_MAX ||
       live_in(r->a, r->hi, s->key))) {
    protect(r->a, r->lo, r->hi - r->lo);
    r->lo = s->key;
  }
  r->hi = s->key + s->len;
}

/* Sort UNV by address: in place when short (a loop's frees come in
 * address order mostly: insertion sort), else through the scratch memory
 * that unv_room set aside. */
static void unv_sort(struct emu_arena *a) {
  size_t m = a->nunprot;
  struct unwait *v = a->unv;
  if (m > UNPROT_INSERT_SORT_MAX) {
    struct unwait *sorted = radix_sort(v, a->unscratch, m);
    if (sorted != v)
      memcpy(v, sorted, m * sizeof *v);
    return;
  }
  for (size_t i = 1; i < m; i++) {
    struct unwait x = v[i];
    size_t j = i;
    for (; j && v[j - 1].key > x.key; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

void arena_unprot_flush(struct emu_arena *a) {
  if (!a->nunprot)
    return;
  unv_sort(a);
  struct flush_run r = {a, 0, 0};
  for (size_t k = 0; k < a->nunprot; k++)
    flush_one(&a->unv[k], &r);
  protect(a, r.lo, r.hi - r.lo);
  unprot_clear(a);
  if (a->no_maps)
    arena_out_of_maps(a);
}

void arena_unprot_before_kernel(struct emu_arena *a) {
  if (a->nsuspects && arena_held_check(a))
    a->unprot_urgent = 1;
  if (a->nunprot &&
      (a->unprot_urgent ||
       settles_now(a) - a->unprot_since >= EMU_CHECK_PROTECT_EVERY))
    arena_unprot_flush(a);
}

void arena_unprot_arg(struct emu_arena *a, uintptr_t p) {
  if (a->nunprot && p >= a->base && p - a->base < a->span &&
      unprot_below(a, p, p + 1) != SIZE_MAX)
    arena_unprot_flush(a);
}
