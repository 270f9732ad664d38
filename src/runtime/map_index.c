/* The mapping table's index (see map_index.h): the B+ tree of
 * src/common/btree_impl.h with one word, the entry, per key. */
#include "config.h"
#include "map_index.h"

#define BT_TREE map_index
#define BT_NODE map_index_node
#define BT_PREFIX mi
#define BT_CAP MAP_INDEX_CAP
#define BT_VALS 1
#define BT_MAXES 0
#include "btree_impl.h"

/* The lookups move the cursor, a cache: they are const for callers. */
#define MUT(ix) ((struct map_index *)(ix))

static inline void *pos_value(struct mi_pos p) {
  return p.lf ? (void *)p.lf->u.lf.val[0][p.i] : NULL;
}

int map_index_insert(struct map_index *ix, uintptr_t key, void *value) {
  uintptr_t v = (uintptr_t)value;
  return mi_insert(ix, key, &v);
}

void map_index_remove(struct map_index *ix, uintptr_t key) {
  mi_remove(ix, key);
}

void *map_index_floor(const struct map_index *ix, uintptr_t k) {
  return pos_value(mi_floor(MUT(ix), k));
}

void *map_index_above(const struct map_index *ix, uintptr_t k) {
  return pos_value(mi_next(MUT(ix), k, 1));
}

void *map_index_ceil(const struct map_index *ix, uintptr_t k) {
  return pos_value(mi_next(MUT(ix), k, 0));
}

void map_index_around(const struct map_index *ix, uintptr_t k, void **floor,
                      void **above) {
  struct mi_pos b, a;
  mi_around(MUT(ix), k, &b, &a);
  *floor = pos_value(b);
  *above = pos_value(a);
}

void map_index_foreach(const struct map_index *ix,
                       int (*fn)(void *value, void *arg), void *arg) {
  for (const struct map_index_node *lf = mi_first_leaf(ix); lf;
       lf = lf->u.lf.next)
    for (unsigned i = 0; i < lf->n; i++)
      if (fn((void *)lf->u.lf.val[0][i], arg))
        return;
}

void map_index_clear(struct map_index *ix) { mi_clear(ix); }

int map_index_check(const struct map_index *ix) { return mi_check(ix); }

_Static_assert(sizeof(struct map_index_node) <= 256,
               "a mapping index node is four cache lines (map_index.h)");
