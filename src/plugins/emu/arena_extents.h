/* The arena's free extents (arena.c, FREE): a B+ tree (src/common/btree.h)
 * from an extent's start to its length, whose inner nodes keep the largest
 * length below each child.  The lowest-addressed extent of at least a
 * given length (address-ordered first fit) is found in one walk down, and
 * so are the two neighbours of an address (to coalesce a freed block
 * with).  A node
 * holds up to XT_CAP extents in six cache lines, so among 100 000 extents
 * a walk visits about five nodes, the upper ones shared by every walk and
 * so in the cache, where a binary tree visits twenty or more.
 * Each extent carries a TAG the tree only keeps (the arena's note of
 * whether the extent holds only the poison).  The tree's cursor makes a
 * change of an extent that the last search found (xt_around, xt_first_fit)
 * start at its leaf instead of walking down again.  Extents never overlap;
 * keys are unique.  Not thread-safe: the arena's lock protects it, for the
 * searches too (they move the cursor). */
#ifndef EMU_ARENA_EXTENTS_H
#define EMU_ARENA_EXTENTS_H

#include "btree.h"

#include <stddef.h>
#include <stdint.h>

#define XT_CAP 14

/* struct xtree, struct xt_node: a leaf's val[0][i] is extent i's length,
 * val[1][i] its tag; inner nodes keep the largest length below each
 * child. */
BTREE_TYPES(xtree, xt_node, XT_CAP, 2, 1);

/* An extent; LEN 0: none. */
struct xt_ext {
  uintptr_t key;
  size_t len;
  unsigned long tag;
};

/* Add the extent [KEY, KEY+LEN), LEN > 0, KEY not present, with TAG.  0,
 * or -1 when out of memory (the tree is then unchanged). */
int xt_insert(struct xtree *t, uintptr_t key, size_t len, unsigned long tag);
/* Remove the extent starting at KEY (present). */
void xt_remove(struct xtree *t, uintptr_t key);
/* The extent starting at KEY (present) becomes [NKEY, NKEY+NLEN), NLEN >
 * 0, with tag NTAG: NKEY must lie above the extent before it and below the
 * one after it.  Never allocates. */
void xt_set(struct xtree *t, uintptr_t key, uintptr_t nkey, size_t nlen,
            unsigned long ntag);
/* The extent with the greatest key <= K into *BELOW and the one with the
 * least key > K into *ABOVE (LEN 0 when none). */
void xt_around(struct xtree *t, uintptr_t k, struct xt_ext *below,
               struct xt_ext *above);
/* The lowest-addressed extent of at least LEN bytes into *OUT: 0, or -1
 * when there is none. */
int xt_first_fit(struct xtree *t, size_t len, struct xt_ext *out);
/* Call FN on each extent in address order. */
void xt_foreach(const struct xtree *t,
                void (*fn)(uintptr_t key, size_t len, void *arg), void *arg);
/* Free every node; the tree is then empty. */
void xt_clear(struct xtree *t);
/* Check the tree's invariants (order, fill, equal depth, links, the
 * maxima, count): the height, or -1 when broken.  For tests. */
int xt_check(const struct xtree *t);

#endif
