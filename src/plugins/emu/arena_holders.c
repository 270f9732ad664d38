/* Check mode: where device memory holds the address of a live block
 * (HELD: the words of copies to the device that carried it), so that a
 * freed block whose address went to the device is protected before the
 * next kernel only if memory a kernel can reach still holds it then
 * (arena_held_check, at that kernel).  A pointer attached to a block is
 * detached (or attached to the next mapping) before that kernel, and a
 * struct holding it is unmapped with it: the address is gone from live
 * memory, and the protection (an mprotect: a TLB shootdown across the
 * process's threads, most of what a launch with an attached pointer
 * cost) is left to the usual delay (arena_protect.c).  The urgency stays
 * for a block whose holders are not all known: a copy whose destination
 * was not given, more than HELD_AT of them, a full table, a holder
 * outside the data arena or on a watched page, or SUSPECTS full when it
 * was freed.  Callers hold the arena's lock. */
#include "config.h"
#include "arena_internal.h"

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

int arena_held_check(struct emu_arena *a) {
  int any = 0;
  for (size_t i = 0; i < a->nsuspects && !any; i++)
    for (size_t k = 0; k < HELD_AT && a->suspects[i].at[k] && !any; k++)
      any = holds(a, a->suspects[i].at[k], a->suspects[i].lo,
                  a->suspects[i].hi);
  a->nsuspects = 0;
  return any;
}
