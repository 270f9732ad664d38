/* Device memory arena (see arena.h): a fixed reserved range per device and
 * purpose, an address-ordered first-fit allocator over it, poisoning, and
 * an optional quarantine of freed pages (OMPEMU_QUARANTINE=1).
 *
 * Data structures, all protected by emu_arena.lock:
 *  - LIVE: array of live blocks sorted by start address; lookups (free,
 *    check, block_of) are binary searches, O(log n).
 *  - FREE: array of free extents sorted by address, coalesced on free.
 *    Allocation takes the lowest extent that fits, so the same sequence of
 *    requests always gives the same addresses.
 *  - QUAR: freed blocks kept PROT_NONE, oldest first; they return to FREE
 *    when an allocation would otherwise fail.
 *  - BYSTART: the live blocks again, in a hash table keyed by start, so
 *    that checking a copy to the start of a block (the usual case: a mapped
 *    variable) costs one probe, not a binary search over every block. */
#include "config.h"
#include "arena.h"
#include "envvar.h"
#include "trace.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define PAGE 4096u

struct extent {
  uintptr_t start;
  size_t len;  /* bytes reserved for the block (aligned) */
  size_t size; /* bytes asked for (live blocks only) */
};

struct xarray {
  struct extent *v;
  size_t n, cap;
};

/* Open addressing with linear probing; START 0 marks an empty slot (no
 * arena starts at 0).  CAP is a power of two, N at most CAP / 2. */
struct htab {
  struct extent *v;
  size_t n, cap;
};

struct emu_arena {
  pthread_mutex_t lock;
  char what[16];
  int dev;
  uintptr_t base;
  size_t capacity;
  size_t align;
  size_t in_use; /* sum of len over LIVE */
  int quarantine;
  struct xarray live, free, quar;
  struct htab bystart;
  size_t quar_head; /* quar.v[quar_head..n) are the quarantined blocks */
};

/* Arenas with a quarantine, for the SIGSEGV handler that names the freed
 * block a fault hit.  Slots are set and cleared under REG_LOCK; the
 * handler reads them without it (it runs only when the process faults). */
#define MAX_QARENAS (2 * EMU_MAX_DEVICES + 16)
static struct emu_arena *_Atomic qarenas[MAX_QARENAS];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction old_segv;

/* Name the freed block at the faulting address, then let the previous
 * handler (by default: the core dump) take the fault again. */
static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  uintptr_t x = (uintptr_t)si->si_addr;
  for (int k = 0; k < MAX_QARENAS; k++) {
    struct emu_arena *a = atomic_load(&qarenas[k]);
    if (!a || x < a->base || x >= a->base + a->capacity)
      continue;
    char msg[256];
    int n = 0;
    for (size_t i = a->quar_head; i < a->quar.n; i++) {
      const struct extent *e = &a->quar.v[i];
      if (x >= e->start && x < e->start + e->len) {
        n = snprintf(msg, sizeof msg, "emu: error: device %d: access to "
                     "freed device memory at " OMPEMU_PTR " (%s block ["
                     OMPEMU_PTR ", " OMPEMU_PTR ") of %zu bytes, freed)\n",
                     a->dev, OMPEMU_P(x), a->what, OMPEMU_P(e->start),
                     OMPEMU_P(e->start + e->size), e->size);
        break;
      }
    }
    if (!n)
      n = snprintf(msg, sizeof msg, "emu: error: device %d: fault at "
                   OMPEMU_PTR " in the %s range\n", a->dev, OMPEMU_P(x),
                   a->what);
    if (n > 0 && write(2, msg, (size_t)n) < 0)
      break;
    break;
  }
  sigaction(sig, &old_segv, NULL);
}

static void quarantine_register(struct emu_arena *a, int on) {
  pthread_mutex_lock(&reg_lock);
  for (int k = 0; k < MAX_QARENAS; k++) {
    if (on && !atomic_load(&qarenas[k])) {
      atomic_store(&qarenas[k], a);
      break;
    }
    if (!on && atomic_load(&qarenas[k]) == a) {
      atomic_store(&qarenas[k], NULL);
      break;
    }
  }
  struct sigaction cur;
  if (on && sigaction(SIGSEGV, NULL, &cur) == 0 &&
      !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv)) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
  }
  pthread_mutex_unlock(&reg_lock);
}

static int xa_insert(struct xarray *xa, size_t at, struct extent e) {
  if (xa->n == xa->cap) {
    size_t nc = xa->cap ? xa->cap * 2 : 64;
    struct extent *nv = realloc(xa->v, nc * sizeof *nv);
    if (!nv)
      return -1;
    xa->v = nv;
    xa->cap = nc;
  }
  memmove(&xa->v[at + 1], &xa->v[at], (xa->n - at) * sizeof *xa->v);
  xa->v[at] = e;
  xa->n++;
  return 0;
}

static void xa_remove(struct xarray *xa, size_t at) {
  memmove(&xa->v[at], &xa->v[at + 1], (xa->n - at - 1) * sizeof *xa->v);
  xa->n--;
}

static size_t h_slot(const struct htab *h, uintptr_t start) {
  uint64_t x = (uint64_t)start * 0x9E3779B97F4A7C15ull;
  return (size_t)(x >> 32) & (h->cap - 1);
}

/* The entry for a block starting at START, or NULL. */
static const struct extent *h_find(const struct htab *h, uintptr_t start) {
  if (!h->n)
    return NULL;
  for (size_t i = h_slot(h, start);; i = (i + 1) & (h->cap - 1)) {
    if (h->v[i].start == start)
      return &h->v[i];
    if (h->v[i].start == 0)
      return NULL;
  }
}

static void h_put(struct htab *h, struct extent e) {
  size_t i = h_slot(h, e.start);
  while (h->v[i].start != 0)
    i = (i + 1) & (h->cap - 1);
  h->v[i] = e;
  h->n++;
}

static int h_insert(struct htab *h, struct extent e) {
  if (2 * (h->n + 1) > h->cap) {
    struct htab g = {NULL, 0, h->cap ? h->cap * 2 : 64};
    g.v = calloc(g.cap, sizeof *g.v);
    if (!g.v)
      return -1;
    for (size_t i = 0; i < h->cap; i++)
      if (h->v[i].start)
        h_put(&g, h->v[i]);
    free(h->v);
    *h = g;
  }
  h_put(h, e);
  return 0;
}

/* Remove START (present), shifting later entries of its probe run back. */
static void h_remove(struct htab *h, uintptr_t start) {
  size_t m = h->cap - 1, i = h_slot(h, start);
  while (h->v[i].start != start)
    i = (i + 1) & m;
  for (size_t j = (i + 1) & m; h->v[j].start; j = (j + 1) & m) {
    size_t k = h_slot(h, h->v[j].start);
    /* Entry J may move to I if its home K is not in (I, J]. */
    if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
      h->v[i] = h->v[j];
      i = j;
    }
  }
  h->v[i].start = 0;
  h->n--;
}

/* Index of the first extent of XA whose start is > P. */
static size_t xa_upper(const struct xarray *xa, uintptr_t p) {
  size_t lo = 0, hi = xa->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (xa->v[mid].start <= p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Index of the live block containing P, or -1. */
static long live_find(const struct emu_arena *a, uintptr_t p) {
  size_t i = xa_upper(&a->live, p);
  if (i == 0)
    return -1;
  const struct extent *e = &a->live.v[i - 1];
  if (p >= e->start && p < e->start + e->len)
    return (long)(i - 1);
  return -1;
}

static size_t round_up(size_t x, size_t al) {
  return (x + al - 1) / al * al;
}

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

struct emu_arena *arena_create(const char *what, int dev, uintptr_t base,
                               size_t capacity, size_t align) {
  if (align == 0 || (align & (align - 1)) || capacity == 0 ||
      capacity % PAGE || base % PAGE) {
    ompemu_error("emu", "device %d: bad %s arena parameters (base " OMPEMU_PTR
                 ", capacity %zu, align %zu)", dev, what, OMPEMU_P(base),
                 capacity, align);
    return NULL;
  }
  struct emu_arena *a = calloc(1, sizeof *a);
  if (!a)
    return NULL;
  void *m = mmap((void *)base, capacity, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                     MAP_FIXED_NOREPLACE,
                 -1, 0);
  if (m == MAP_FAILED) {
    int e = errno;
    ompemu_error("emu", "device %d: cannot reserve the %s range [" OMPEMU_PTR
                 ", " OMPEMU_PTR "): %s%s", dev, what, OMPEMU_P(base),
                 OMPEMU_P(base + capacity), strerror(e),
                 e == EEXIST ? " (something else is mapped there)" : "");
    free(a);
    return NULL;
  }
  if ((uintptr_t)m != base) {
    /* A kernel (or valgrind) without MAP_FIXED_NOREPLACE took the address
     * as a hint.  Check in /proc/self/maps that the range is free and
     * take it with MAP_FIXED; the base never changes. */
    munmap(m, capacity);
    m = MAP_FAILED;
    uintptr_t lo, hi;
    if (range_is_free(base, base + capacity, &lo, &hi))
      m = mmap((void *)base, capacity, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (m != (void *)base) {
      if (m != MAP_FAILED)
        munmap(m, capacity);
      ompemu_error("emu", "device %d: cannot reserve the %s range [" OMPEMU_PTR
                   ", " OMPEMU_PTR "): the kernel offered another address and "
                   "[" OMPEMU_PTR ", " OMPEMU_PTR ") is mapped there", dev,
                   what, OMPEMU_P(base), OMPEMU_P(base + capacity),
                   OMPEMU_P(lo), OMPEMU_P(hi));
      free(a);
      return NULL;
    }
  }
  pthread_mutex_init(&a->lock, NULL);
  snprintf(a->what, sizeof a->what, "%s", what);
  a->dev = dev;
  a->base = base;
  a->capacity = capacity;
  a->align = align;
  int q = 0;
  ompemu_env_bool("OMPEMU_QUARANTINE", 0, &q);
  a->quarantine = q;
  if (q)
    quarantine_register(a, 1);
  if (xa_insert(&a->free, 0, (struct extent){base, capacity, 0}) != 0) {
    munmap(m, capacity);
    free(a);
    return NULL;
  }
  return a;
}

void arena_destroy(struct emu_arena *a) {
  if (!a)
    return;
  if (a->quarantine)
    quarantine_register(a, 0);
  munmap((void *)a->base, a->capacity);
  pthread_mutex_destroy(&a->lock);
  free(a->live.v);
  free(a->free.v);
  free(a->quar.v);
  free(a->bystart.v);
  free(a);
}

/* Put [START, START+LEN) back into FREE, merging with its neighbours.
 * Caller holds the lock. */
static int free_insert(struct emu_arena *a, uintptr_t start, size_t len) {
  size_t i = xa_upper(&a->free, start);
  int merged = 0;
  if (i > 0) {
    struct extent *prev = &a->free.v[i - 1];
    if (prev->start + prev->len == start) {
      prev->len += len;
      merged = 1;
      if (i < a->free.n && prev->start + prev->len == a->free.v[i].start) {
        prev->len += a->free.v[i].len;
        xa_remove(&a->free, i);
      }
    }
  }
  if (!merged && i < a->free.n && start + len == a->free.v[i].start) {
    a->free.v[i].start = start;
    a->free.v[i].len += len;
    merged = 1;
  }
  if (!merged)
    return xa_insert(&a->free, i, (struct extent){start, len, 0});
  return 0;
}

/* Release the oldest quarantined block back to FREE.  0 if one was. */
static int quar_release_one(struct emu_arena *a) {
  if (a->quar_head >= a->quar.n)
    return -1;
  struct extent e = a->quar.v[a->quar_head++];
  mprotect((void *)e.start, e.len, PROT_READ | PROT_WRITE);
  memset((void *)e.start, EMU_POISON_BYTE, e.len);
  if (a->quar_head == a->quar.n)
    a->quar_head = a->quar.n = 0;
  return free_insert(a, e.start, e.len);
}

void *arena_alloc(struct emu_arena *a, size_t size) {
  size_t al = a->quarantine && a->align < PAGE ? PAGE : a->align;
  if (size > a->capacity)
    goto full_unlocked;
  size_t len = round_up(size ? size : 1, al);
  pthread_mutex_lock(&a->lock);
  if (a->in_use + len > a->capacity)
    goto full;
  for (;;) {
    for (size_t i = 0; i < a->free.n; i++) {
      struct extent *f = &a->free.v[i];
      if (f->len < len)
        continue;
      uintptr_t p = f->start;
      long at = (long)xa_upper(&a->live, p);
      if (h_insert(&a->bystart, (struct extent){p, len, size}) != 0)
        goto full;
      if (xa_insert(&a->live, (size_t)at, (struct extent){p, len, size}) != 0) {
        h_remove(&a->bystart, p);
        goto full;
      }
      f->start += len;
      f->len -= len;
      if (f->len == 0)
        xa_remove(&a->free, i);
      a->in_use += len;
      pthread_mutex_unlock(&a->lock);
      if (al >= PAGE)
        mprotect((void *)p, len, PROT_READ | PROT_WRITE);
      memset((void *)p, EMU_POISON_BYTE, len);
      return (void *)p;
    }
    if (quar_release_one(a) != 0)
      break;
  }
full:
  pthread_mutex_unlock(&a->lock);
full_unlocked:
  ompemu_trace(2, "emu", "device %d: %s arena cannot hold %zu more bytes "
               "(%zu of %zu in use)", a->dev, a->what, size, a->in_use,
               a->capacity);
  return NULL;
}

int arena_free(struct emu_arena *a, void *ptr) {
  uintptr_t p = (uintptr_t)ptr;
  pthread_mutex_lock(&a->lock);
  long i = live_find(a, p);
  if (i < 0 || a->live.v[i].start != p) {
    if (i >= 0) {
      struct extent e = a->live.v[i];
      pthread_mutex_unlock(&a->lock);
      ompemu_error("emu", "device %d: free of " OMPEMU_PTR ", which is not "
                   "the start of a %s block: it lies inside the block ["
                   OMPEMU_PTR ", " OMPEMU_PTR ") of %zu bytes", a->dev,
                   OMPEMU_P(p), a->what, OMPEMU_P(e.start),
                   OMPEMU_P(e.start + e.size), e.size);
    } else {
      int inside = p >= a->base && p < a->base + a->capacity;
      pthread_mutex_unlock(&a->lock);
      ompemu_error("emu", "device %d: free of " OMPEMU_PTR ", which is not "
                   "a live %s block (%s)", a->dev, OMPEMU_P(p), a->what,
                   inside ? "inside the range but not allocated, or already "
                            "freed" : "outside the range");
    }
    return -1;
  }
  struct extent e = a->live.v[i];
  xa_remove(&a->live, (size_t)i);
  h_remove(&a->bystart, e.start);
  a->in_use -= e.len;
  /* Code blocks may have been left read-only or executable by the loader.
   * Live blocks of a data arena are always read-write (only quarantined
   * ones are not), so a data free costs no system call. */
  if (a->align >= PAGE && e.start % PAGE == 0 && e.len % PAGE == 0)
    mprotect((void *)e.start, e.len, PROT_READ | PROT_WRITE);
  memset((void *)e.start, EMU_POISON_BYTE, e.len);
  int rc = 0;
  if (a->quarantine && e.start % PAGE == 0 && e.len % PAGE == 0) {
    if (xa_insert(&a->quar, a->quar.n, e) == 0)
      mprotect((void *)e.start, e.len, PROT_NONE);
    else
      rc = free_insert(a, e.start, e.len);
  } else {
    rc = free_insert(a, e.start, e.len);
  }
  pthread_mutex_unlock(&a->lock);
  return rc;
}

int arena_check(struct emu_arena *a, const void *ptr, size_t size) {
  uintptr_t p = (uintptr_t)ptr;
  if (p < a->base || p >= a->base + a->capacity)
    return -1;
  pthread_mutex_lock(&a->lock);
  const struct extent *e = h_find(&a->bystart, p);
  if (!e) {
    long i = live_find(a, p);
    e = i >= 0 ? &a->live.v[i] : NULL;
  }
  int rc = -1;
  if (e) {
    /* Only the bytes asked for count: a copy into the alignment padding is
     * an overflow on a real device too. */
    if (p - e->start <= e->size && size <= e->start + e->size - p)
      rc = 0;
  }
  pthread_mutex_unlock(&a->lock);
  return rc;
}

int arena_block_of(struct emu_arena *a, const void *ptr, void **start,
                   size_t *size) {
  pthread_mutex_lock(&a->lock);
  long i = live_find(a, (uintptr_t)ptr);
  if (i >= 0) {
    if (start)
      *start = (void *)a->live.v[i].start;
    if (size)
      *size = a->live.v[i].size;
  }
  pthread_mutex_unlock(&a->lock);
  return i >= 0 ? 0 : -1;
}

uintptr_t arena_base(const struct emu_arena *a) { return a->base; }
size_t arena_capacity(const struct emu_arena *a) { return a->capacity; }

size_t arena_in_use(const struct emu_arena *a) {
  struct emu_arena *m = (struct emu_arena *)a;
  pthread_mutex_lock(&m->lock);
  size_t n = a->in_use;
  pthread_mutex_unlock(&m->lock);
  return n;
}

int arena_owns(const struct emu_arena *a, const void *p) {
  uintptr_t x = (uintptr_t)p;
  return x >= a->base && x < a->base + a->capacity;
}
