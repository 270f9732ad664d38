/* Internals of the arena shared by arena.c (allocation, freeing) and
 * arena_query.c (lookups, checks, fault descriptions).  Not an interface
 * outside those two files. */
#ifndef EMU_ARENA_INTERNAL_H
#define EMU_ARENA_INTERNAL_H

#include "arena.h"
#include "arena_extents.h"
#include "arena_index.h"
#include "biaslock.h"

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#define PAGE ((size_t)4096)

/* Tags of free extents (FREE, arena_extents.h), for lazy data arenas
 * outside check mode: every byte of the extent below HWM held the poison
 * when arena_settle had been called TAG times (no kernel can have written
 * it since if that is still the count, and copies only write live
 * blocks), so a block allocated there owes no poison.  FREE_FRESH: no
 * byte of the extent lies below HWM (never allocated memory, zeros);
 * FREE_DIRTY: not known. */
#define FREE_FRESH (ULONG_MAX - 1)
#define FREE_DIRTY ULONG_MAX

struct fifo {
  struct anode *head, *tail;
  size_t n, bytes;
};

struct unwait; /* arena_protect.c */

/* arena_holders.c: a live block (its extent's KEY) and the device
 * addresses of the words its address was copied to (0: none more). */
#define HELD_AT 2
#define HELD_MAX 32
struct aheld {
  uintptr_t key;
  uintptr_t at[HELD_AT];
};
/* arena_holders.c: memory outside the arena a kernel can leave a value in
 * for a later one (arena_reach_add). */
#define REACH_MAX 32
struct areach {
  const void *owner;
  uintptr_t lo;
  size_t len;
};
#define DONOR_SLOTS 4 /* arena_donor.c */
/* A freed block [LO, HI) and where its address was. */
#define SUSPECTS_MAX 16
struct asuspect {
  uintptr_t lo, hi;
  uintptr_t at[HELD_AT];
};

/* What arena_settle owes (emu_arena.owed). */
#define OWED_NOW 1
#define OWED_UNPROT 2

struct emu_arena {
  struct biaslock lock; /* biaslock.h */
  char what[16];
  int dev;
  uintptr_t base;
  size_t capacity, span, align;
  size_t in_use;  /* sum of the charges of live blocks */
  unsigned flags; /* ARENA_* */
  int quarantine; /* OMPEMU_QUARANTINE (page-sized blocks) */
  enum emu_poison_kind poison;
  struct abits starts; /* LIVE: extent starts of live blocks */
  struct xtree free; /* FREE */
  struct xt_ext hole; /* one extent of FREE kept out of its tree (arena.c,
                       * free_insert); LEN 0: none */
  struct anode *stale;
  /* The last two small freed extents whose poison is still owed, the
   * newer second (arena.c: a construct frees its pointee and then its
   * struct, and allocates them again next); LEN 0: none. */
  struct xt_ext stale_last[2];
  /* Check mode: the freed pages still read-write (UNPROT, arena_protect.c):
   * their ranges, unsorted, indexed by page. */
  struct unwait *unv;
  size_t nunprot, capunv;
  uint64_t *unstarts;     /* a bit per page of the span where one starts */
  uint32_t *unidx;        /* its index in UNV by that page */
  size_t unlen_max;       /* the longest of them since UNPROT was empty */
  void *unscratch;        /* for sorting UNV (as large) */
  size_t unscratch_bytes;
  unsigned long unprot_since; /* SETTLES when UNPROT became non-empty */
  int unprot_urgent; /* UNPROT holds pages opened ahead or a block whose
                     * address was copied to the device */
  struct aslots bystart; /* live blocks by extent start */
  struct apool pool;
  struct fifo cool, quar;
  struct anode pending;   /* list head (next/prev) */
  atomic_int owed;        /* OWED_NOW: PENDING, STALE or STALE_LAST not
                           * empty, or UNPROT urgent; OWED_UNPROT: only
                           * UNPROT not empty (protected from UNPROT_DUE
                           * on); 0 */
  atomic_ulong settles;   /* arena_settle calls (kernels) */
  atomic_ulong frees;     /* odd while arena_free changes anything, then
                           * even: arena_settled_unlocked */
  size_t guarded;         /* check mode: live blocks with a guard page */
  size_t dontdump;        /* check mode: guard pages marked MADV_DONTDUMP */
  size_t quar_kept;       /* check mode: body bytes of the quarantined
                           * blocks that keep their pages */
  uint64_t *marks;        /* check mode with guard markers (arena_protect.c):
                           * one bit per page of the span, set where a
                           * marker is installed; NULL without them */
  uintptr_t armed;        /* with MARKS: [HWM, ARMED) is read-write with a
                           * marker on every page */
  uintptr_t open_lo, open_hi; /* with MARKS: free pages below HWM opened
                               * ahead of a block (arena.c) */
  int no_maps;            /* check mode: the process ran out of memory
                           * mappings: 1 found, 2 protection given up
                           * (arena_out_of_maps) */
  uintptr_t hwm;          /* end of the highest extent ever allocated */
  size_t cool_max_blocks, cool_max_bytes;
  /* Check mode: the SETTLES count from which UNPROT is protected; 0: it
   * is empty.  Last: placed before SETTLES, it made the default mode's
   * 4 KiB launch about 10 % slower where measured (the same instructions:
   * a layout effect, docs/check.md "Cost"). */
  atomic_ulong unprot_due;
  /* Check mode: free extents kept out of FREE's tree (arena_freeset.c),
   * from the highest down; SIDE_HIT: the entry the last first fit chose,
   * or SIZE_MAX.  NULL outside check mode (HOLE instead). */
  struct xt_ext *side;
  size_t nside, side_hit;
  /* Check mode: where live blocks' addresses were copied to, and the
   * freed blocks to look at before the next kernel (arena_holders.c). */
  struct aheld held[HELD_MAX];
  size_t nheld;
  struct asuspect suspects[SUSPECTS_MAX];
  size_t nsuspects;
  struct areach reach[REACH_MAX];
  size_t nreach;
  int reach_full; /* a range did not fit: the scan cannot be complete */
  /* Check mode: the pages of freed large blocks waiting for the next
   * block of their length, in slots of SPARE (arena_donor.c): their
   * lengths (0: empty), the slot to fill next; DONORS_OFF: mremap cannot
   * move them. */
  uintptr_t spare;
  size_t donor_len[DONOR_SLOTS], donor_next;
  int donors_off;
};

extern const char *(*arena_kernel_namer)(const void *entry);

static inline int arena_is_check(const struct emu_arena *a) {
  return (a->flags & ARENA_CHECK) != 0;
}

/* What UNPROT alone owes (emu_arena.owed).  Caller holds the lock. */
static inline int arena_unprot_owed(const struct emu_arena *a) {
  return !a->nunprot ? 0
         : a->unprot_urgent || a->nsuspects ? OWED_NOW
                                            : OWED_UNPROT;
}

/* Pages of a live or freed block's extent that are not its guard. */
static inline size_t arena_body_len(const struct anode *n) {
  return n->len - (n->flags & ANODE_GUARDED ? PAGE : 0);
}

/* arena_fill.c and arena_query.c; callers hold the lock. */
void arena_pending_link(struct emu_arena *a, struct anode *n);
void arena_fill(struct emu_arena *a, uintptr_t p, size_t n, int off_limits);
void arena_fill_block(struct emu_arena *a, struct anode *n, uintptr_t skip,
                      size_t skipn);
void arena_pending_unlink(struct emu_arena *a, struct anode *n);
void arena_stale_fill_one(struct anode *s, void *arg);
void arena_stale_release(struct anode *s, void *arg);
void arena_settle_locked(struct emu_arena *a);
/* arena_protect.c (check mode): freed pages left read-write for a while.
 * _add remembers [P, P+LEN) (HOW: UNPROT_*); _cut takes [P, P+LEN) out
 * (an allocation) and returns how many of its first BODY bytes were
 * read-write, in *CLEAN how many of those still hold only the poison, and
 * sets *GUARD_RW if any of the rest was read-write; _flush makes them all
 * PROT_NONE; _before_kernel flushes when the next kernel must not reach
 * them; _arg when a kernel is given the address P and it lies in them. */
#define UNPROT_CLEAN 0x1 /* the range holds only the poison */
#define UNPROT_FRESH 0x2 /* never-allocated pages opened ahead */
#define UNPROT_URGENT 0x4 /* protect before the next kernel */
#define UNPROT_SUSPECT 0x8 /* that kernel looks whether it must */
void arena_unprot_add(struct emu_arena *a, uintptr_t p, size_t len,
                      unsigned how);
size_t arena_unprot_cut(struct emu_arena *a, uintptr_t p, size_t len,
                        size_t body, size_t *clean, int *guard_rw);
void arena_unprot_flush(struct emu_arena *a);
void arena_unprot_before_kernel(struct emu_arena *a);
void arena_unprot_arg(struct emu_arena *a, uintptr_t p);
/* Frees the memory of the freed ranges waiting to go into UNPROT. */
void arena_unprot_release(struct emu_arena *a);
/* Check mode, guard markers (MADV_GUARD_INSTALL, Linux 6.13): _init
 * tries them on the arena's first page and sets MARKS when they work;
 * _set puts one on the guard page G (a no-op where one is); _clear takes
 * those in [P, P+LEN) away (1 if there were any: those pages read as
 * zeros now); _arm makes the never-allocated pages up to END at least
 * read-write with a marker on each (ARMED), EMU_CHECK_ARM bytes at a
 * time, so that a block allocated there only takes the markers off its
 * body.  0 or -1 with errno. */
void arena_marks_init(struct emu_arena *a);
int arena_marks_arm(struct emu_arena *a, uintptr_t end);
int arena_mark_set(struct emu_arena *a, uintptr_t g);
int arena_marks_clear(struct emu_arena *a, uintptr_t p, size_t len);
/* Check mode: mprotect failed for want of mappings (ENOMEM): give page
 * protection up for good (arena_protect.c). */
void arena_out_of_maps(struct emu_arena *a);
/* arena_freeset.c: the free extents.  _insert adds [KEY, KEY+LEN) with
 * TAG, merged with its free neighbours; _first_fit finds the lowest of at
 * least LEN bytes (0, or -1 if none) and _take takes LEN bytes from the
 * start of the one it found; _side_init gives a check-mode arena its SIDE
 * (without memory for it, HOLE serves). */
void arena_free_insert(struct emu_arena *a, uintptr_t key, size_t len,
                       unsigned long tag);
int arena_free_first_fit(struct emu_arena *a, size_t len, struct xt_ext *f);
void arena_free_take(struct emu_arena *a, const struct xt_ext *f, size_t len);
void arena_side_init(struct emu_arena *a);
/* arena_holders.c (check mode): _note: live block B's address was
 * copied to the device word at AT (0: not known where); _free: block N
 * (BODY bytes of pages) is being freed, KEPT if its pages wait in UNPROT:
 * the UNPROT_* urgency it needs; _check: 1 if a block freed since the
 * last kernel may still be reached through device memory. */
void arena_held_note(struct emu_arena *a, struct anode *b, uintptr_t at);
unsigned arena_held_free(struct emu_arena *a, struct anode *n, size_t body,
                         int kept);
int arena_held_check(struct emu_arena *a);
/* arena_donor.c (check mode): _add keeps the pages of the freed large
 * block [P, P+LEN) and makes the range inaccessible (-1: not kept, the
 * caller gives them back); _take moves kept pages under the new block's
 * body [P, P+BODY), read-write, if some were of that length (1 if it
 * did); _release gives everything back. */
int arena_donor_add(struct emu_arena *a, uintptr_t p, size_t len);
int arena_donor_take(struct emu_arena *a, uintptr_t p, size_t body);
void arena_donors_release(struct emu_arena *a);
/* The live block whose extent holds P, or NULL.  Caller holds the lock.
 * Here, not in arena_query.c: arena_holders.c asks it too, and
 * arena_query.c calls into arena_holders.c. */
static inline struct anode *arena_extent_of(const struct emu_arena *a,
                                            uintptr_t p) {
  struct anode *n = aslots_get(&a->bystart, p);
  if (n)
    return n;
  uintptr_t k = abits_floor(&a->starts, p);
  n = k ? aslots_get(&a->bystart, k) : NULL;
  return n && p < k + n->len ? n : NULL;
}
int arena_settled_unlocked(struct emu_arena *a, uintptr_t p, size_t size);
/* Check mode: report overwritten slack around live block N; 1 if all of
 * it was found to hold the poison. */
int arena_check_slack(struct emu_arena *a, struct anode *n,
                      const char *when);

#endif
