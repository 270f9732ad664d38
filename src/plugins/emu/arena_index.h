/* The arena's indexes (arena_index.c): extents as nodes of treaps keyed by
 * address (the ranges whose poison is owed; the free extents have a tree
 * of their own, arena_extents.h), a table of live blocks by start, a bitmap of their
 * starts, and a pool the nodes come from.
 * Every operation is O(log n) expected (O(1) for the table) in the number
 * of extents; none allocates on the common path.  Not thread-safe: the
 * arena's lock protects them. */
#ifndef EMU_ARENA_INDEX_H
#define EMU_ARENA_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* An extent of the arena: a live block (with its user start and SIZE), a
 * free extent, a cooling or quarantined block, or a range to poison.  One
 * cache line, 64-byte aligned in the pool: freeing a block reads one line
 * of its node. */
struct anode {
  uintptr_t key;        /* extent start */
  size_t len;           /* extent length */
  size_t size;          /* live: bytes asked for */
  uint32_t off;         /* live: the block's offset in the extent */
  unsigned flags;       /* ANODE_* */
  /* A node is in a treap (STALE) or on a list (pending, a FIFO, the
   * pool's free list), never both. */
  union {
    struct {
      struct anode *l, *r; /* treap children */
    };
    struct {
      struct anode *next, *prev; /* FIFO (cool, quarantine) or pending */
    };
  };
  const void *last_kernel;   /* check mode: last kernel given the block */
  unsigned long born;        /* live: arena_settle calls before its alloc
                              * (check mode: or when its slack was last
                              * found intact); cooling: its tag in FREE
                              * (FREE_DIRTY...) */
};

/* The address of live block N. */
static inline uintptr_t anode_start(const struct anode *n) {
  return n->key + n->off;
}

#define ANODE_PENDING 0x1 /* live: not yet poisoned, content stale */
#define ANODE_GUARDED 0x2 /* check mode: a guard page follows the block */
#define ANODE_EXPOSED 0x8 /* live: its address was copied to the device */
#define ANODE_HELD 0x10 /* live, exposed: where to is known (arena_holders.c) */

/* Treap operations; ROOT is updated in place.  A node's priority is a
 * hash of its key. */
void atree_insert(struct anode **root, struct anode *n);
/* Remove the node whose key is KEY (present) and return it. */
struct anode *atree_remove(struct anode **root, uintptr_t key);
/* Node with the largest key <= P, or NULL. */
struct anode *atree_floor(struct anode *root, uintptr_t p);
/* Node with the smallest key >= P, or NULL. */
struct anode *atree_ceil(struct anode *root, uintptr_t p);
/* Call FN on every node in address order. */
void atree_walk(struct anode *root, void (*fn)(struct anode *, void *),
                void *arg);

/* Nodes are taken from chunks and given back to a free list. */
struct apool {
  struct anode *free;
  void **chunks;
  size_t nchunks, capchunks;
};
struct anode *apool_get(struct apool *p); /* zeroed; NULL without memory */
void apool_put(struct apool *p, struct anode *n);
void apool_release(struct apool *p);

/* Starts of live extents: one bit per GRAN bytes of [BASE, BASE+SPAN),
 * with a summary bit per word, so the live extent holding an address is
 * found with a few word operations (and no tree walk) whatever the number
 * of blocks.  The words are mapped lazily (untouched pages cost nothing). */
struct abits {
  uint64_t *l1, *l2;
  size_t n1, n2; /* words */
  uintptr_t base;
  size_t gran;
};
int abits_init(struct abits *b, uintptr_t base, size_t span, size_t gran);
void abits_release(struct abits *b);
void abits_set(struct abits *b, uintptr_t p);
void abits_clear(struct abits *b, uintptr_t p);
/* The highest set address <= P, or 0 if none. */
uintptr_t abits_floor(const struct abits *b, uintptr_t p);

/* Live blocks by extent start: one pointer per GRAN bytes of [BASE,
 * BASE+SPAN), the node of the live extent that starts there or NULL.  A
 * block is found with one load, and blocks allocated one after another
 * share cache lines (a hash spreads them at random over a table up to
 * four times the number of live blocks).  The pointers are mapped lazily:
 * a page of them covers 512 * GRAN bytes of the range, so they take at
 * most 8 host bytes per GRAN bytes of the range ever used (1/32 for GRAN
 * 256, 1/512 in check mode), and nothing where no block ever was. */
struct aslots {
  struct anode **v;
  size_t n; /* pointers */
  uintptr_t base;
  size_t gran;
};
int aslots_init(struct aslots *s, uintptr_t base, size_t span, size_t gran);
void aslots_release(struct aslots *s);
/* The live node starting at P, or NULL (P anywhere; only multiples of
 * GRAN above BASE can start one). */
static inline struct anode *aslots_get(const struct aslots *s, uintptr_t p) {
  uintptr_t off = p - s->base;
  if (p < s->base || off % s->gran || off / s->gran >= s->n)
    return NULL;
  return s->v[off / s->gran];
}
/* Record N as the live node starting at P (a multiple of GRAN in the
 * range), or forget it (N NULL). */
static inline void aslots_set(struct aslots *s, uintptr_t p, struct anode *n) {
  s->v[(p - s->base) / s->gran] = n;
}

#endif
