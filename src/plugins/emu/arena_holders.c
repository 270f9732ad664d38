/* Check mode: whether a freed block whose address went to the device must
 * be protected before the next kernel (an mprotect: a TLB shootdown across
 * the process's threads, most of what a launch with an attached pointer
 * cost), or can wait for the usual delay (arena_protect.c).
 *
 * It must be protected if a kernel can still find its address.  HELD: the
 * words of copies to the device that carried the address of a live block;
 * a pointer attached to a block is detached (or attached to the next
 * mapping) before the next kernel, and a struct holding it is unmapped
 * with it, so those words usually no longer hold it.  But a kernel or a
 * device-to-device copy may have put the address anywhere else a kernel
 * can read later: a declare-target global, another mapped block.  So at
 * the next kernel (arena_held_check) the known holders are looked at
 * first, then every word of every live block and of every range a kernel
 * can keep values in (an image's data: arena_reach_add); the block waits
 * only when none holds an address inside it.  That scan is bounded
 * (SCAN_BYTES, SCAN_BLOCKS); beyond it, and for a block whose holders are
 * not all known (a copy whose destination was not given, more than
 * HELD_AT of them, a full table, SUSPECTS full), the block is protected at
 * once, as every exposed block once was.  A block on a watched page
 * cannot be read without a fault: the same.  Callers hold the arena's
 * lock. */
#include "config.h"
#include "arena_internal.h"

#include "wordscan.h"

#include <string.h>

static int (*watched)(uintptr_t x);

void arena_set_watched(int (*fn)(uintptr_t x)) {
  watched = fn;
}

static struct aheld *held_find(struct emu_arena *a, uintptr_t key) {
  for (size_t i = 0; i < a->nheld; i++)
    if (a->held[i].key == key)
      return &a->held[i];
  return NULL;
}

static void held_drop(struct emu_arena *a, struct aheld *h) {
  *h = a->held[--a->nheld];
}

void arena_held_note(struct emu_arena *a, struct anode *b, uintptr_t at) {
  if (!(b->flags & ANODE_EXPOSED)) {
    b->flags |= ANODE_EXPOSED;
    if (at && a->nheld < HELD_MAX) {
      a->held[a->nheld++] = (struct aheld){b->key, {at}};
      b->flags |= ANODE_HELD;
    }
    return;
  }
  if (!(b->flags & ANODE_HELD))
    return;
  struct aheld *h = held_find(a, b->key);
  for (size_t k = 0; at && h && k < HELD_AT; k++)
    if (h->at[k] == at || !h->at[k]) {
      h->at[k] = at;
      return;
    }
  if (h)
    held_drop(a, h);
  b->flags &= ~ANODE_HELD;
}

unsigned arena_held_free(struct emu_arena *a, struct anode *n, size_t body,
                         int kept) {
  if (!(n->flags & ANODE_EXPOSED))
    return 0;
  struct aheld *h = n->flags & ANODE_HELD ? held_find(a, n->key) : NULL;
  unsigned how = UNPROT_URGENT;
  if (h && kept && a->nsuspects < SUSPECTS_MAX) {
    struct asuspect *s = &a->suspects[a->nsuspects++];
    s->lo = n->key;
    s->hi = n->key + body;
    memcpy(s->at, h->at, sizeof s->at);
    how = UNPROT_SUSPECT;
  }
  if (h)
    held_drop(a, h);
  return how;
}

/* 1 if the word at AT may still hold an address in [LO, HI). */
static int holds(const struct emu_arena *a, uintptr_t at, uintptr_t lo,
                 uintptr_t hi) {
  if (at < a->base || at - a->base >= a->span)
    return 1; /* not ours to read */
  const struct anode *b = arena_extent_of(a, at);
  uintptr_t s = b ? anode_start(b) : 0;
  /* Freed, or never allocated: a kernel reaching it is found there. */
  if (!b || at < s || at + sizeof(uint64_t) > s + b->size)
    return 0;
  if (watched && watched(at))
    return 1;
  uint64_t v;
  memcpy(&v, (const void *)at, sizeof v);
  /* A block allocated there since is what it points to now. */
  return v >= lo && v < hi && !arena_extent_of(a, v);
}

/* What the scan of live memory may read before it gives up (and the
 * suspects are protected): about what the mprotect it saves costs. */
#define SCAN_BYTES ((size_t)128 << 10)
#define SCAN_BLOCKS 256

void arena_reach_add(struct emu_arena *a, const void *owner, uintptr_t lo,
                     size_t len) {
  biaslock_lock(&a->lock);
  if (a->nreach < REACH_MAX)
    a->reach[a->nreach++] = (struct areach){owner, lo, len};
  else
    a->reach_full = 1;
  biaslock_unlock(&a->lock);
}

void arena_reach_drop(struct emu_arena *a, const void *owner) {
  biaslock_lock(&a->lock);
  for (size_t i = 0; i < a->nreach;)
    if (a->reach[i].owner == owner)
      a->reach[i] = a->reach[--a->nreach];
    else
      i++;
  biaslock_unlock(&a->lock);
}

/* 1 if a word of [P, P+LEN) holds an address inside one of A's suspects
 * (all inside [LO, HI)), or the scan's remaining budget *LEFT is spent. */
static int range_holds(const struct emu_arena *a, uintptr_t p, size_t len,
                       uintptr_t lo, uintptr_t hi, size_t *left) {
  if (len > *left)
    return 1;
  *left -= len;
  const unsigned char *c = (const unsigned char *)p;
  size_t words = len / sizeof(uint64_t);
  for (size_t i = 0;
       (i += ompemu_first_word_in(c + i * sizeof(uint64_t), words - i, lo,
                                  hi - lo)) < words;
       i++) {
    uint64_t v;
    memcpy(&v, c + i * sizeof v, sizeof v);
    for (size_t k = 0; k < a->nsuspects; k++)
      if (v >= a->suspects[k].lo && v < a->suspects[k].hi)
        return 1;
  }
  return 0;
}

/* 1 if live memory a kernel can read (the live blocks, the REACH ranges)
 * may hold an address in [LO, HI), or the scan could not tell. */
static int live_memory_holds(const struct emu_arena *a, uintptr_t lo,
                             uintptr_t hi) {
  if (a->reach_full)
    return 1;
  size_t left = SCAN_BYTES, blocks = 0;
  for (size_t i = 0; i < a->nreach; i++)
    if (range_holds(a, a->reach[i].lo, a->reach[i].len, lo, hi, &left))
      return 1;
  for (uintptr_t k = a->hwm ? abits_floor(&a->starts, a->hwm - 1) : 0; k;
       k = k > a->base ? abits_floor(&a->starts, k - 1) : 0) {
    const struct anode *n = aslots_get(&a->bystart, k);
    if (!n)
      continue;
    if (++blocks > SCAN_BLOCKS)
      return 1;
    uintptr_t s = anode_start(n);
    if (watched)
      for (uintptr_t pg = s & ~(uintptr_t)(PAGE - 1); pg < s + n->size;
           pg += PAGE)
        if (watched(pg))
          return 1;
    if (range_holds(a, s, n->size, lo, hi, &left))
      return 1;
  }
  return 0;
}

int arena_held_check(struct emu_arena *a) {
  int any = 0;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (size_t i = 0; i < a->nsuspects && !any; i++) {
    for (size_t k = 0; k < HELD_AT && a->suspects[i].at[k] && !any; k++)
      any = holds(a, a->suspects[i].at[k], a->suspects[i].lo,
                  a->suspects[i].hi);
    if (a->suspects[i].lo < lo)
      lo = a->suspects[i].lo;
    if (a->suspects[i].hi > hi)
      hi = a->suspects[i].hi;
  }
  if (!any && lo < hi)
    any = live_memory_holds(a, lo, hi);
  a->nsuspects = 0;
  return any;
}
