/* Check mode: the pages of freed large blocks, kept to be moved under the
 * next large block of the same length (DONORS).  A block of more than
 * EMU_CHECK_KEEP_MAX bytes is made inaccessible when freed and its range
 * stays in the quarantine, so the next allocation gets another range:
 * fresh pages, one fault each (about 1.2 us a page here: 1.2 ms per 4 MiB
 * block, most of what a loop mapping a 4 MiB array cost).  Instead its
 * pages are moved (mremap, MREMAP_DONTUNMAP: the range keeps its mapping,
 * now without pages, and is made PROT_NONE, which costs little with no
 * pages in it) to a slot of a reservation outside the arena (SPARE), and
 * from there under the next block of that length, read-write; that block
 * owes its poison as any reused block does.  What a freed block is and
 * where the next one goes do not change.  At most DONOR_SLOTS blocks of
 * up to DONOR_BYTES each are kept; without MREMAP_DONTUNMAP (older
 * kernels, valgrind) the pages are given back as before.  Callers hold
 * the arena's lock. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mremap */
#endif
#include "config.h"
#include "arena_internal.h"

#include <sys/mman.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

#define DONOR_BYTES ((size_t)256 << 20)

static uintptr_t slot_at(const struct emu_arena *a, size_t i) {
  return a->spare + i * DONOR_BYTES;
}

/* Move LEN bytes of pages from FROM to TO (a mapping stays at FROM). */
static int move(uintptr_t from, uintptr_t to, size_t len) {
  return mremap((void *)from, len, len,
                MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP,
                (void *)to) == MAP_FAILED
             ? -1
             : 0;
}

/* Give slot I's pages back (its reservation stays). */
static void drop(struct emu_arena *a, size_t i) {
  if (a->donor_len[i])
    mmap((void *)slot_at(a, i), a->donor_len[i], PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  a->donor_len[i] = 0;
}

int arena_donor_add(struct emu_arena *a, uintptr_t p, size_t len) {
  if (a->donors_off || len > DONOR_BYTES)
    return -1;
  if (!a->spare) {
    void *m = mmap(NULL, DONOR_SLOTS * DONOR_BYTES, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
      a->donors_off = 1;
      return -1;
    }
    a->spare = (uintptr_t)m;
  }
  /* The slot used longest ago (round robin). */
  size_t i = a->donor_next;
  drop(a, i);
  if (move(p, slot_at(a, i), len) != 0) {
    a->donors_off = 1; /* not supported here: never again */
    for (size_t k = 0; k < DONOR_SLOTS; k++)
      drop(a, k);
    return -1;
  }
  a->donor_len[i] = len;
  a->donor_next = (i + 1) % DONOR_SLOTS;
  /* No pages left there: cheap.  Should it fail, the range holds none
   * anyway and reads as zeros; the caller's mmap makes it PROT_NONE. */
  return mprotect((void *)p, len, PROT_NONE);
}

int arena_donor_take(struct emu_arena *a, uintptr_t p, size_t body) {
  for (size_t k = 0; k < DONOR_SLOTS; k++) {
    size_t i = (a->donor_next + DONOR_SLOTS - 1 - k) % DONOR_SLOTS;
    if (a->donor_len[i] != body)
      continue;
    /* The pages come read-write, as the slot's mapping is. */
    if (move(slot_at(a, i), p, body) != 0) {
      drop(a, i);
      return 0;
    }
    a->donor_len[i] = 0;
    return 1;
  }
  return 0;
}

void arena_donors_release(struct emu_arena *a) {
  if (a->spare)
    munmap((void *)a->spare, DONOR_SLOTS * DONOR_BYTES);
  a->spare = 0;
}
