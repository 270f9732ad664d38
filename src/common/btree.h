/* B+ trees from uintptr_t keys to a few words each, generated per use so
 * that the key compare and the node walk are inlined with constant sizes:
 * the runtime's mapping index (src/runtime/map_index.c) and the emu
 * arena's free extents (src/plugins/emu/arena_extents.c).
 *
 * A header declares a tree's types with
 *     BTREE_TYPES(TREE, NODE, CAP, VALS, MAXES)
 * (struct TREE and struct NODE: up to CAP keys a node, VALS words per key
 * in a leaf; MAXES 1: every inner node keeps the largest first word below
 * each child, for first-fit searches).  One source file then generates
 * the operations, static inline functions named PREFIX_..., with
 *     #define BT_TREE TREE, BT_NODE NODE, BT_PREFIX PREFIX,
 *             BT_CAP CAP, BT_VALS VALS, BT_MAXES MAXES
 *     #include "btree_impl.h"
 * (see that file for the operations).
 *
 * Every node but the root and the rightmost node of each level is at
 * least half full, so a tree of n keys has O(log n) levels with a base of
 * CAP / 2 or more; keys added in ascending order leave full nodes behind
 * them (the right edge splits unevenly).  A node is a few
 * 64-byte-aligned lines from a block pool: among 100 000 keys a walk
 * visits four or five nodes, the upper ones shared by every walk and so in
 * the cache.  Keys are unique.  Leaves are linked both ways for in-order
 * walks and neighbour queries.  The tree remembers the path of its last
 * walk (the cursor): an operation on a key of the leaf it ended in (an
 * exit's removal after its lookup, a free extent changed after the search
 * that found it) starts there instead of walking down again.
 * Not thread-safe: the owner's lock protects the tree, lookups included
 * (they move the cursor). */
#ifndef OMPEMU_BTREE_H
#define OMPEMU_BTREE_H

#include "block_pool.h"

#include <stddef.h>
#include <stdint.h>

/* Levels at most, leaves included: (CAP / 2)^(BTREE_MAX_HEIGHT - 1) keys
 * (with CAP >= 6, more than an address space holds) */
#define BTREE_MAX_HEIGHT 24

#define BTREE_TYPES(TREE, NODE, CAP, VALS, MAXES)                            \
  struct NODE {                                                              \
    uint32_t n;    /* keys in use */                                         \
    uint32_t leaf; /* 1: a leaf; 0: an inner node */                         \
    uintptr_t key[CAP];                                                      \
    union {                                                                  \
      /* val[c][i]: word C of key I's value */                               \
      struct {                                                               \
        uintptr_t val[VALS][CAP];                                            \
        struct NODE *prev, *next; /* neighbours in key order */              \
      } lf;                                                                  \
      /* child[0..n]: child i holds the keys k with key[i-1] <= k <         \
       * key[i]; max[i]: the largest first word in child i (MAXES) */        \
      struct {                                                               \
        struct NODE *child[(CAP) + 1];                                       \
        uintptr_t max[(MAXES) ? (CAP) + 1 : 0];                              \
      } in;                                                                  \
    } u;                                                                     \
  };                                                                         \
  struct TREE {                                                              \
    struct NODE *root; /* NULL when empty */                                 \
    size_t count;      /* keys */                                            \
    int height;        /* levels, leaves included; 0 when empty */           \
    struct block_pool nodes;                                                 \
    /* The rightmost leaf, or NULL when not known. */                        \
    struct NODE *tail;                                                       \
    /* The cursor: path[0..walked-1] the nodes from the root down to a      \
     * leaf, idx[l] the child of path[l] taken; WALKED 0: none. */           \
    int walked;                                                              \
    unsigned idx[BTREE_MAX_HEIGHT];                                          \
    struct NODE *path[BTREE_MAX_HEIGHT];                                     \
  }

#endif
