/* The ordered index of a mapping table: a B+ tree (src/common/btree.h)
 * from a mapping's host begin address to its entry.  Nodes hold up to
 * MAP_INDEX_CAP keys in four 64-byte lines, so a lookup among 100 000
 * mappings visits four or five nodes where a binary tree visits seventeen.
 * The tree's cursor makes the removal that follows a lookup of the same
 * key (an exit finds its entry, then removes it) start at the leaf the
 * lookup found, and a key above every other (mappings made in address
 * order) is appended to the rightmost leaf without a walk.  Keys are
 * unique (mappings never overlap).  Not thread-safe: the mapping table's
 * users hold the device's map_lock, for the lookups too (they move the
 * cursor). */
#ifndef OMPEMU_MAP_INDEX_H
#define OMPEMU_MAP_INDEX_H

#include "btree.h"

#include <stddef.h>
#include <stdint.h>

#define MAP_INDEX_CAP 14

/* struct map_index, struct map_index_node; a leaf's val[0][i] is key i's
 * entry. */
BTREE_TYPES(map_index, map_index_node, MAP_INDEX_CAP, 1, 0);

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
