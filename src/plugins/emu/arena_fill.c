/* Poison owed by a lazy arena (see arena.h, ARENA_LAZY): filling a block
 * or a range, the list of live blocks still owing it, arena_settle, which
 * pays everything owed before a kernel runs, and the lock-free check of a
 * copy to or from a block that owes nothing. */
#include "config.h"
#include "arena_internal.h"

#include <stdatomic.h>

void arena_pending_link(struct emu_arena *a, struct anode *n) {
  n->flags |= ANODE_PENDING;
  n->next = a->pending.next;
  n->prev = &a->pending;
  a->pending.next->prev = n;
  a->pending.next = n;
  atomic_store_explicit(&a->owed, OWED_NOW, memory_order_relaxed);
}

void arena_pending_unlink(struct emu_arena *a, struct anode *n) {
  n->flags &= ~ANODE_PENDING;
  n->prev->next = n->next;
  n->next->prev = n->prev;
  n->next = n->prev = NULL;
  /* Nothing left to pay: arena_settle need not take the lock. */
  if (a->pending.next == &a->pending && !a->stale &&
      !a->stale_last[0].len && !a->stale_last[1].len)
    atomic_store_explicit(&a->owed, arena_unprot_owed(a),
                          memory_order_relaxed);
}

/* Fill [P, P+N) with the poison, telling ASan around it: the range stays
 * off limits to ASan (OFF_LIMITS) or becomes usable. */
void arena_fill(struct emu_arena *a, uintptr_t p, size_t n, int off_limits) {
  if (!n)
    return;
  asan_unpoison((void *)p, n);
  poison_fill(a->poison, (void *)p, n);
  if (off_limits)
    asan_poison((void *)p, n);
}

/* Poison live block N whose poison is owed, except [SKIP, SKIP+SKIPN)
 * (what a copy is about to write). */
void arena_fill_block(struct emu_arena *a, struct anode *n, uintptr_t skip,
                       size_t skipn) {
  uintptr_t lo = n->key, hi = n->key + arena_body_len(n);
  if (!arena_is_check(a) && !asan_present()) {
    arena_fill(a, lo, skip ? skip - lo : hi - lo, 0);
    if (skip)
      arena_fill(a, skip + skipn, hi - skip - skipn, 0);
  } else {
    /* Slack before and after the block is off limits to ASan. */
    uintptr_t s = anode_start(n), e = s + n->size;
    arena_fill(a, lo, s - lo, 1);
    if (skip) {
      arena_fill(a, s, skip - s, 0);
      arena_fill(a, skip + skipn, e - skip - skipn, 0);
    } else {
      arena_fill(a, s, e - s, 0);
    }
    arena_fill(a, e, hi - e, 1);
  }
  arena_pending_unlink(a, n);
}

void arena_stale_fill_one(struct anode *s, void *arg) {
  arena_fill(arg, s->key, s->len, 1);
}

void arena_stale_release(struct anode *s, void *arg) {
  apool_put(&((struct emu_arena *)arg)->pool, s);
}

/* Write every poison owed.  Caller holds the lock. */
void arena_settle_locked(struct emu_arena *a) {
  while (a->pending.next != &a->pending)
    arena_fill_block(a, a->pending.next, 0, 0);
  if (a->stale) {
    atree_walk(a->stale, arena_stale_fill_one, a);
    atree_walk(a->stale, arena_stale_release, a);
    a->stale = NULL;
  }
  for (int i = 0; i < 2; i++)
    if (a->stale_last[i].len) {
      arena_fill(a, a->stale_last[i].key, a->stale_last[i].len, 1);
      a->stale_last[i].len = 0;
    }
  arena_unprot_before_kernel(a);
  atomic_store_explicit(&a->owed, arena_unprot_owed(a), memory_order_relaxed);
}

void arena_settle(struct emu_arena *a) {
  /* Every mode reads the count: check mode's protection and slack, and
   * the poison tags of free extents and new blocks ("no kernel since"),
   * which must never miss a kernel. */
  atomic_fetch_add_explicit(&a->settles, 1, memory_order_relaxed);
  int owed = atomic_load_explicit(&a->owed, memory_order_relaxed);
  if (!owed)
    return;
  /* Check mode: freed ranges waiting for protection need the lock only
   * when it is due (arena_unprot_before_kernel), not at every kernel. */
  if (owed == OWED_UNPROT &&
      atomic_load_explicit(&a->settles, memory_order_relaxed) <
          atomic_load_explicit(&a->unprot_due, memory_order_relaxed))
    return;
  biaslock_lock(&a->lock);
  arena_settle_locked(a);
  biaslock_unlock(&a->lock);
}

/* 1 if [P, P+SIZE) starts a live block of the default mode (a copy to or
 * from a mapped variable: the usual case) that owes no poison, found
 * without the lock; 0: not known this way, take it.  arena_free makes
 * FREES odd before it changes anything and even again after: the same
 * even count before and after the look means no block was freed
 * meanwhile, so the node read was live throughout (a node changes owner
 * only through a free, and a live block never owes poison again).  What
 * the lock gave the caller is the same: the block was live at one
 * instant, and the copy follows. */
int arena_settled_unlocked(struct emu_arena *a, uintptr_t p, size_t size) {
  if (arena_is_check(a) || p < a->base || p >= a->base + a->span)
    return 0;
  unsigned long g = atomic_load_explicit(&a->frees, memory_order_acquire);
  if (g & 1)
    return 0;
  uintptr_t off = p - a->bystart.base;
  if (off % a->bystart.gran)
    return 0;
  struct anode *n =
      __atomic_load_n(&a->bystart.v[off / a->bystart.gran], __ATOMIC_RELAXED);
  if (!n)
    return 0;
  int ok = __atomic_load_n(&n->key, __ATOMIC_RELAXED) +
                   __atomic_load_n(&n->off, __ATOMIC_RELAXED) ==
               p &&
           size <= __atomic_load_n(&n->size, __ATOMIC_RELAXED) &&
           !(__atomic_load_n(&n->flags, __ATOMIC_RELAXED) & ANODE_PENDING);
  atomic_thread_fence(memory_order_acquire);
  return ok && atomic_load_explicit(&a->frees, memory_order_relaxed) == g;
}
