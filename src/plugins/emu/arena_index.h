/* The arena's indexes (arena_index.c): extents as nodes of treaps keyed by
 * address (the ranges whose poison is owed, and in check mode the freed
 * pages still read-write; the free extents have a tree of their own,
 * arena_extents.h), a hash of live blocks by start, and a pool the nodes
 * come from.
 * Every operation is O(log n) expected (O(1) for the hash) in the number
 * of extents; none allocates on the common path.  Not thread-safe: the
 * arena's lock protects them. */
#ifndef EMU_ARENA_INDEX_H
#define EMU_ARENA_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* An extent of the arena: a live block (with its user START and SIZE), a
 * free extent, a cooling or quarantined block, or a range to poison. */
struct anode {
  uintptr_t key;        /* extent start */
  size_t len;           /* extent length */
  struct anode *l, *r;  /* treap children */
  uint32_t prio;        /* treap priority: a hash of KEY, deterministic */
  unsigned flags;       /* ANODE_* */
  uintptr_t start;      /* live: the block's address (in the extent) */
  size_t size;          /* live: bytes asked for */
  struct anode *next, *prev; /* FIFO (cool, quarantine) or pending list */
  const void *last_kernel;   /* check mode: last kernel given the block */
  unsigned long born;        /* live: arena_settle calls before its alloc;
                              * cooling: its tag in FREE (FREE_DIRTY...) */
};

#define ANODE_PENDING 0x1 /* live: not yet poisoned, content stale */
#define ANODE_GUARDED 0x2 /* check mode: a guard page follows the block */
#define ANODE_CLEAN 0x4   /* unprotected freed range: all poison */
#define ANODE_EXPOSED 0x8 /* live: its address was copied to the device */

/* Treap operations; ROOT is updated in place. */
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

/* Live blocks by extent start (the block's start but in check mode):
 * open addressing, linear probing; START 0 marks an empty slot (no arena
 * starts at 0).  Slots are 16 bytes, four to a cache line: the table is
 * up to four times as large as the number of live blocks and is probed at
 * random, so its size decides how much of it stays in the caches. */
struct hslot {
  uintptr_t start;
  struct anode *node;
};
struct ahash {
  struct hslot *v;
  size_t n, cap;
};
const struct hslot *ahash_find(const struct ahash *h, uintptr_t start);
int ahash_insert(struct ahash *h, uintptr_t start, struct anode *node);
void ahash_remove(struct ahash *h, uintptr_t start); /* START present */

#endif
