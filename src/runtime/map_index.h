/* The ordered index of a mapping table: a B+ tree from a mapping's host
 * begin address to its entry.  Nodes hold up to MAP_INDEX_CAP sorted keys
 * in one 64-byte-aligned block (the key count and the keys share the first
 * two cache lines), so a lookup among 100 000 mappings visits four or five
 * nodes, the upper ones shared by every lookup and so in the cache, where
 * a binary tree visits seventeen.  Leaves are linked both ways for
 * in-order walks and neighbour queries.  Keys are unique (mappings never
 * overlap).  Not thread-safe: the mapping table's users hold the device's
 * map_lock. */
#ifndef OMPEMU_MAP_INDEX_H
#define OMPEMU_MAP_INDEX_H

#include "block_pool.h"

#include <stddef.h>
#include <stdint.h>

#define MAP_INDEX_CAP 15

struct map_index_node {
  uint32_t n;    /* keys in use */
  uint32_t leaf; /* 1: ptr[i] is key[i]'s value; 0: ptr[i] are children */
  uintptr_t key[MAP_INDEX_CAP];
  /* Leaf: ptr[0..n-1] are the values.  Inner node: ptr[0..n] are the
   * children; child i holds the keys k with key[i-1] <= k < key[i]. */
  void *ptr[MAP_INDEX_CAP + 1];
  struct map_index_node *prev, *next; /* leaves: neighbours in key order */
};

struct map_index {
  struct map_index_node *root; /* NULL when empty */
  size_t count;
  int height; /* levels, leaves included; 0 when empty */
  struct block_pool nodes;
  /* The leaf the last lookup ended in, or NULL: the removal that usually
   * follows (an exit finds its entry, then removes it) takes the key out
   * of it without a second walk when it stays at least half full.  Reset
   * by whatever may free or split a leaf. */
  struct map_index_node *hint;
  /* The rightmost leaf, or NULL when not known: a key above every other
   * (mappings made in address order) is appended there without a walk
   * while it has room. */
  struct map_index_node *tail;
};

/* Add KEY -> VALUE (KEY not present).  0, or -1 when out of memory (the
 * index is then unchanged). */
int map_index_insert(struct map_index *ix, uintptr_t key, void *value);
/* Remove KEY (present; if it is not, nothing changes). */
void map_index_remove(struct map_index *ix, uintptr_t key);
/* The value of the greatest key <= K, of the least key > K, of the least
 * key >= K; NULL if none. */
void *map_index_floor(const struct map_index *ix, uintptr_t k);
void *map_index_above(const struct map_index *ix, uintptr_t k);
void *map_index_ceil(const struct map_index *ix, uintptr_t k);
/* Both the floor and the above of K, from one walk. */
void map_index_around(const struct map_index *ix, uintptr_t k, void **floor,
                      void **above);
/* Call FN on each value in key order; it returns non-zero to stop.  FN
 * must not change the index. */
void map_index_foreach(const struct map_index *ix,
                       int (*fn)(void *value, void *arg), void *arg);
/* Free every node (not the values); the index is then empty. */
void map_index_clear(struct map_index *ix);
/* Check the tree's invariants (order, fill, equal depth, links, count):
 * the height, or -1 when broken.  For tests. */
int map_index_check(const struct map_index *ix);

#endif
