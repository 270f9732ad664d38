/* Host heap blocks for the checking mode (docs/check.md, "Bounds and
 * lifetime"): the block of glibc's malloc that a map section starts at,
 * so that a section longer than the block the program allocated
 * (`map(to: a[0:n*n])` for `a = malloc(n * sizeof *a)`) is reported by
 * variable and line before the copy reads or writes past it.
 *
 * Only what can be told for certain is used: a section that begins where
 * malloc's result begins, in the main heap (between the start of the
 * `[heap]` mapping and the current break) or in a block of its own
 * (mmap'ed), recognised by the headers glibc keeps in front of each
 * block (size and flags, in 16-byte units on x86-64).  A heap block's
 * header is trusted only when the headers of the blocks after it chain up
 * consistently (CHAIN_STEPS of them, or up to the end of the heap); any
 * doubt, a section starting inside a block, another allocator (ASan, a
 * malloc of the program's own) or data outside the heap: no answer, no
 * finding. */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK_ALIGN 16u
#define MIN_CHUNK 32u
#define PREV_INUSE 0x1u
#define IS_MMAPPED 0x2u
#define FLAGS 0x7u
/* Headers after a block that must chain up before its own is trusted. */
#define CHAIN_STEPS 16

static int state; /* 0 unknown, 1 usable, -1 not glibc's malloc here */
static uintptr_t heap_lo;

/* Is the process's malloc glibc's (and not ASan's, nor the program's)?
 * The main heap's start from /proc/self/maps.  Once (setup below). */
static __attribute__((noinline)) int setup_once(void) {
  state = -1;
  Dl_info di;
  void *m = dlsym(RTLD_DEFAULT, "malloc");
  if (!m || !dladdr(m, &di) || !di.dli_fname || !strstr(di.dli_fname, "libc.so"))
    return 0;
  if (dlsym(RTLD_DEFAULT, "__asan_init") || dlsym(RTLD_DEFAULT, "__msan_init"))
    return 0;
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return 0;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (strstr(line, "[heap]") && sscanf(line, "%lx-%lx", &lo, &hi) == 2)
      heap_lo = lo;
  }
  fclose(f);
  state = 1;
  return 1;
}

/* Every map section asks: the answer, without setup_once's frame. */
static int setup(void) { return state ? state > 0 : setup_once(); }

static uintptr_t word(uintptr_t a) { return *(const uintptr_t *)a; }

/* The page size, asked once (sysconf costs a launch 100 instructions). */
static long page_size(void) {
  static long pg;
  if (!pg)
    pg = sysconf(_SC_PAGESIZE);
  return pg;
}

/* Is [A, A+N) mapped (mincore fails with ENOMEM where it is not)? */
static int mapped(uintptr_t a, uintptr_t n) {
  long pg = page_size();
  uintptr_t lo = a & ~(uintptr_t)(pg - 1);
  unsigned char vec[2];
  if (mincore((void *)lo, (size_t)pg, vec) != 0)
    return 0;
  uintptr_t last = (a + n - 1) & ~(uintptr_t)(pg - 1);
  return mincore((void *)last, (size_t)pg, vec) == 0;
}

/* The last block heap_block trusted: a launch loop maps the same section
 * each time, and the walk of CHAIN_STEPS headers cost it about 100 ns.
 * Trusted again while its header, the next block's header (which says
 * it is in use) and the heap's end are the same. */
static struct {
  uintptr_t p, hi, size, next_size, usable;
} last_block;

/* The header of the in-use main-heap block whose data begins at P, if the
 * headers from there on are consistent: its usable bytes, or 0. */
static uintptr_t heap_block(uintptr_t p, uintptr_t hi) {
  uintptr_t c = p - 2 * sizeof(uintptr_t);
  uintptr_t size = word(c + sizeof(uintptr_t));
  if (size & IS_MMAPPED)
    return 0;
  uintptr_t head = size;
  size &= ~(uintptr_t)FLAGS;
  if (last_block.p == p && last_block.hi == hi && last_block.size == head &&
      word(c + size + sizeof(uintptr_t)) == last_block.next_size)
    return last_block.usable;
  uintptr_t usable = size - sizeof(uintptr_t);
  for (int step = 0; step < CHAIN_STEPS; step++) {
    uintptr_t sz = word(c + sizeof(uintptr_t)) & ~(uintptr_t)FLAGS;
    if (sz < MIN_CHUNK || sz % CHUNK_ALIGN || c + sz > hi || c + sz < c)
      return 0;
    uintptr_t next = c + sz;
    if (next + 2 * sizeof(uintptr_t) > hi)
      return next == hi ? usable : 0; /* the top block ends the heap */
    uintptr_t nsz = word(next + sizeof(uintptr_t));
    if (step == 0 && !(nsz & PREV_INUSE))
      return 0; /* P's block is free: not one the program holds */
    if (nsz & IS_MMAPPED)
      return 0;
    c = next;
  }
  last_block.p = p;
  last_block.hi = hi;
  last_block.size = head;
  last_block.next_size = word(p - sizeof(uintptr_t) + size);
  last_block.usable = usable;
  return usable;
}

/* A block of its own (mmap'ed by malloc) whose data begins at P: its
 * usable bytes, or 0. */
static uintptr_t mmapped_block(uintptr_t p) {
  long pg = page_size();
  uintptr_t c = p - 2 * sizeof(uintptr_t);
  if (c % (uintptr_t)pg || !mapped(c, 2 * sizeof(uintptr_t)))
    return 0;
  uintptr_t size = word(c + sizeof(uintptr_t));
  if ((size & FLAGS) != IS_MMAPPED || word(c) != 0)
    return 0;
  size &= ~(uintptr_t)FLAGS;
  if (!size || size % (uintptr_t)pg || !mapped(c, size))
    return 0;
  return size - 2 * sizeof(uintptr_t);
}

/* Usable bytes of the malloc block whose data begins at P, or 0 when P is
 * not known as the start of one. */
static uintptr_t heap_usable(uintptr_t p) {
  if (!p || p % CHUNK_ALIGN || !setup())
    return 0;
  if (heap_lo && p >= heap_lo) { /* below it (static data): no sbrk */
    uintptr_t hi = (uintptr_t)sbrk(0);
    if (p >= heap_lo + 2 * sizeof(uintptr_t) && p < hi)
      return heap_block(p, hi);
    if (p < hi)
      return 0;
  }
  return mmapped_block(p);
}

/* The usable bytes of the malloc block E's host range starts at, when the
 * range runs past its end; else 0.  Caller holds check_lock (setup). */
static uintptr_t past_block(const struct obs_event *e) {
  uintptr_t size = (uintptr_t)e->size;
  if (!e->hst || !size || rt_usm())
    return 0;
  uintptr_t usable = heap_usable(e->hst);
  return usable && size > usable ? usable : 0;
}

int heap_map_section(struct cregion *r, const struct obs_event *e) {
  uintptr_t size = (uintptr_t)e->size, usable = past_block(e);
  if (!usable)
    return 0;
  int to = (e->maptype & OMP_TGT_MAPTYPE_TO) != 0;
  int from = (e->maptype & OMP_TGT_MAPTYPE_FROM) != 0;
  const char *what = e->decision == OBS_MAP_REFUSED
                         ? "it runs into data already mapped, so the "
                           "runtime refused to map it"
                     : to && from ? "the runtime reads them and writes them "
                                  "back"
                     : to   ? "the runtime reads them"
                     : from ? "the runtime writes them back"
                            : "a copy back (map(from:), target update from) "
                              "would write them";
  char v[400], mt[64];
  /* No host address in the message: the heap's layout varies from run
   * to run with the threads that allocate in it. */
  check_finding("map section past the end of host memory: map(%s) of %s at "
                "the %s at %s is %lu bytes, but the heap block it starts "
                "at (from malloc) holds at most %lu: %lu bytes past the end "
                "of what the program allocated, and %s",
                check_maptype_words(e->maptype, 0, mt, sizeof mt),
                check_var_words(e->var, e->hst, size, v, sizeof v),
                r ? check_region_words(r->kind, r->nowait) : "construct",
                r ? r->where : "unknown location", (unsigned long)size,
                (unsigned long)usable, (unsigned long)(size - usable), what);
  return 1;
}

int heap_copy_back_past(const struct obs_event *e, struct cregion *r) {
  uintptr_t size = (uintptr_t)e->size;
  if (!e->hst || !size)
    return 0;
  check_lock_take();
  uintptr_t usable = past_block(e);
  if (!usable) {
    check_lock_give();
    return 0;
  }
  char v[400];
  check_finding("copy to the host past the end of host memory: %s at the %s "
                "at %s would write %lu bytes into a heap block (from malloc) "
                "of at most %lu, overwriting %lu bytes of other heap data; "
                "ompemu did not make the copy",
                check_var_words(e->var, e->hst, size, v, sizeof v),
                r ? check_region_words(r->kind, r->nowait) : "construct",
                r ? r->where : "unknown location", (unsigned long)size,
                (unsigned long)usable, (unsigned long)(size - usable));
  /* The mapping the refused copy leaves behind is this finding's too. */
  struct cblock *b = cb_find(e->device, e->tgt);
  if (b)
    b->lost_reported = 1;
  check_lock_give();
  return 1;
}
