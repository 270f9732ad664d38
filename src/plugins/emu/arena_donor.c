/* Check mode: the pages of freed large blocks, kept to be moved under the
 * next large block of the same length (DONORS).  A block of more than
 * EMU_CHECK_KEEP_MAX bytes is made inaccessible when freed and its range
 * stays in the quarantine, so the next allocation gets another range:
 * fresh pages, one fault each (about 1.2 us a page here: 1.2 ms per 4 MiB
 * block, most of what a loop mapping a 4 MiB array cost).  Instead its
 * pages stay populated, PROT_NONE, and the next allocation of that length
 * takes them with one mremap (MREMAP_DONTUNMAP: the freed range stays
 * reserved and inaccessible, now without pages); the block then owes its
 * poison as any reused block does.  What a freed block is and where the
 * next one goes do not change.  At most DONOR_SLOTS blocks and
 * DONOR_BYTES bytes are kept; without MREMAP_DONTUNMAP (older kernels,
 * valgrind) the pages are given back as before.  Callers hold the arena's
 * lock. */
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

/* Give the pages of donor I back (a fresh inaccessible mapping) and take
 * it off the list. */
static void drop(struct emu_arena *a, size_t i) {
  struct xt_ext *d = &a->donors[i];
  if (mmap((void *)d->key, d->len, PROT_NONE,
           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
           0) == MAP_FAILED)
    arena_fill(a, d->key, d->len, 1); /* at least poisoned */
  a->donors_bytes -= d->len;
  a->donors[i] = a->donors[--a->ndonors];
}

int arena_donor_add(struct emu_arena *a, uintptr_t p, size_t len) {
  if (a->donors_off || len > DONOR_BYTES ||
      mprotect((void *)p, len, PROT_NONE) != 0)
    return -1;
  /* The oldest go first (slot 0 is the oldest while none was taken). */
  while (a->ndonors &&
         (a->ndonors == DONOR_SLOTS || a->donors_bytes + len > DONOR_BYTES))
    drop(a, 0);
  a->donors[a->ndonors++] = (struct xt_ext){p, len, 0};
  a->donors_bytes += len;
  return 0;
}

int arena_donor_take(struct emu_arena *a, uintptr_t p, size_t len,
                     size_t body) {
  size_t pick = DONOR_SLOTS;
  for (size_t i = 0; i < a->ndonors;) {
    struct xt_ext *d = &a->donors[i];
    if (d->key < p + len && p < d->key + d->len) {
      /* The block lands on a donor's range: those pages are its own. */
      a->donors_bytes -= d->len;
      a->donors[i] = a->donors[--a->ndonors];
      continue;
    }
    if (d->len == body)
      pick = i;
    i++;
  }
  if (pick == DONOR_SLOTS)
    return 0;
  struct xt_ext d = a->donors[pick];
  void *m = mremap((void *)d.key, body, body,
                   MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, (void *)p);
  if (m == MAP_FAILED) {
    drop(a, pick);
    a->donors_off = 1; /* not supported here: never again */
    while (a->ndonors)
      drop(a, 0);
    return 0;
  }
  a->donors_bytes -= d.len;
  a->donors[pick] = a->donors[--a->ndonors];
  /* The pages came with the donor's protection; out of mappings, the
   * arena opens everything (and poisons the donors). */
  if (mprotect((void *)p, body, PROT_READ | PROT_WRITE) != 0)
    arena_out_of_maps(a);
  return 1;
}

void arena_donors_poison(struct emu_arena *a) {
  for (size_t i = 0; i < a->ndonors; i++)
    arena_fill(a, a->donors[i].key, a->donors[i].len, 1);
  a->ndonors = 0;
  a->donors_bytes = 0;
}
