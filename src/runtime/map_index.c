/* The B+ tree behind a mapping table (see map_index.h).  Insertions and
 * removals walk down once, remember the path, and repair it bottom-up:
 * a full node splits in two, a node below half full borrows from a
 * neighbour or merges with it.  Every node but the root is at least half
 * full, so the height is O(log n) with a base of 8 or more. */
#include "config.h"
#include "map_index.h"

#include <stdlib.h>
#include <string.h>

#define CAP MAP_INDEX_CAP
#define MIN (CAP / 2)
#define MAX_HEIGHT 32 /* 8^31 keys: never reached */

typedef struct map_index_node node;

static node *node_new(struct map_index *ix, int leaf) {
  node *nd = block_pool_get(&ix->nodes, sizeof(node));
  if (!nd)
    return NULL;
  nd->n = 0;
  nd->leaf = (uint32_t)leaf;
  nd->prev = nd->next = NULL;
  return nd;
}

/* Number of keys of ND that are <= K. */
static inline unsigned count_le(const node *nd, uintptr_t k) {
  /* Counted, not searched: no branch to mispredict per key (a
   * binary search mispredicts about half of its steps). */
  unsigned c = 0;
  for (unsigned i = 0; i < nd->n; i++)
    c += nd->key[i] <= k;
  return c;
}

/* Number of keys of ND that are < K. */
static inline unsigned count_lt(const node *nd, uintptr_t k) {
  /* Counted, not searched: no branch to mispredict per key (a
   * binary search mispredicts about half of its steps). */
  unsigned c = 0;
  for (unsigned i = 0; i < nd->n; i++)
    c += nd->key[i] < k;
  return c;
}

/* Ask for every line of ND at once: the walk reads its keys (two lines)
 * and then one of its pointers, and each would otherwise wait for the one
 * before (the first line is asked for by the caller's read). */
static inline void fetch_node(const node *nd) {
  for (size_t off = 64; off < sizeof *nd; off += 64)
    __builtin_prefetch((const char *)nd + off);
}

/* The leaf whose key range holds K; it becomes the hint (a cache: the
 * lookups are const for their callers). */
static const node *leaf_of(const struct map_index *ix, uintptr_t k) {
  node *nd = ix->root;
  while (nd && !nd->leaf) {
    nd = nd->ptr[count_le(nd, k)];
    fetch_node(nd);
  }
  ((struct map_index *)ix)->hint = nd;
  return nd;
}

void *map_index_floor(const struct map_index *ix, uintptr_t k) {
  const node *lf = leaf_of(ix, k);
  if (!lf)
    return NULL;
  unsigned j = count_le(lf, k);
  if (j)
    return lf->ptr[j - 1];
  /* Every key of the leaves before this one is below K. */
  lf = lf->prev;
  return lf ? lf->ptr[lf->n - 1] : NULL;
}

void map_index_around(const struct map_index *ix, uintptr_t k, void **floor,
                      void **above) {
  const node *lf = leaf_of(ix, k);
  *floor = *above = NULL;
  if (!lf)
    return;
  unsigned j = count_le(lf, k);
  if (j)
    *floor = lf->ptr[j - 1];
  else if (lf->prev)
    *floor = lf->prev->ptr[lf->prev->n - 1];
  if (j < lf->n)
    *above = lf->ptr[j];
  else if (lf->next)
    *above = lf->next->ptr[0];
}

void *map_index_above(const struct map_index *ix, uintptr_t k) {
  const node *lf = leaf_of(ix, k);
  if (!lf)
    return NULL;
  unsigned j = count_le(lf, k);
  if (j < lf->n)
    return lf->ptr[j];
  lf = lf->next;
  return lf ? lf->ptr[0] : NULL;
}

void *map_index_ceil(const struct map_index *ix, uintptr_t k) {
  const node *lf = leaf_of(ix, k);
  if (!lf)
    return NULL;
  unsigned j = count_lt(lf, k);
  if (j < lf->n)
    return lf->ptr[j];
  lf = lf->next;
  return lf ? lf->ptr[0] : NULL;
}

/* The path from the root to K's leaf: NODES[0] is the root, and
 * IDX[l] the child of NODES[l] taken (for the leaf: unused). */
struct path {
  node *nodes[MAX_HEIGHT];
  unsigned idx[MAX_HEIGHT];
};

static void walk_down(const struct map_index *ix, uintptr_t k, struct path *p) {
  node *nd = ix->root;
  for (int l = 0; l < ix->height; l++) {
    p->nodes[l] = nd;
    if (!nd->leaf) {
      p->idx[l] = count_le(nd, k);
      nd = nd->ptr[p->idx[l]];
      fetch_node(nd);
    }
  }
}

/* Put KEY/PTR at position POS of ND (not full).  In an inner node PTR is
 * the child right of KEY. */
static void put(node *nd, unsigned pos, uintptr_t key, void *ptr) {
  unsigned pp = nd->leaf ? pos : pos + 1;
  memmove(&nd->key[pos + 1], &nd->key[pos], (nd->n - pos) * sizeof nd->key[0]);
  memmove(&nd->ptr[pp + 1], &nd->ptr[pp],
          (nd->n + (nd->leaf ? 0 : 1) - pp) * sizeof nd->ptr[0]);
  nd->key[pos] = key;
  nd->ptr[pp] = ptr;
  nd->n++;
}

/* ND is full: add KEY/PTR at POS and move the upper part to the empty
 * node R.  Returns the key that separates ND from R in their parent. */
static uintptr_t split(node *nd, node *r, unsigned pos, uintptr_t key,
                       void *ptr) {
  uintptr_t keys[CAP + 1];
  void *ptrs[CAP + 2];
  int leaf = nd->leaf != 0;
  unsigned nptr = leaf ? CAP : CAP + 1, pp = leaf ? pos : pos + 1;
  memcpy(keys, nd->key, pos * sizeof keys[0]);
  keys[pos] = key;
  memcpy(keys + pos + 1, nd->key + pos, (CAP - pos) * sizeof keys[0]);
  memcpy(ptrs, nd->ptr, pp * sizeof ptrs[0]);
  ptrs[pp] = ptr;
  memcpy(ptrs + pp + 1, nd->ptr + pp, (nptr - pp) * sizeof ptrs[0]);
  unsigned half = (CAP + 1) / 2; /* keys kept on the left */
  if (leaf) {
    /* CAP + 1 keys: HALF stay, the rest move; the separator is R's first. */
    nd->n = half;
    memcpy(nd->key, keys, half * sizeof keys[0]);
    memcpy(nd->ptr, ptrs, half * sizeof ptrs[0]);
    r->n = CAP + 1 - half;
    memcpy(r->key, keys + half, r->n * sizeof keys[0]);
    memcpy(r->ptr, ptrs + half, r->n * sizeof ptrs[0]);
    r->next = nd->next;
    r->prev = nd;
    if (nd->next)
      nd->next->prev = r;
    nd->next = r;
    return r->key[0];
  }
  /* CAP + 1 keys, CAP + 2 children: HALF keys stay, one goes up. */
  nd->n = half;
  memcpy(nd->key, keys, half * sizeof keys[0]);
  memcpy(nd->ptr, ptrs, (half + 1) * sizeof ptrs[0]);
  r->n = CAP - half;
  memcpy(r->key, keys + half + 1, r->n * sizeof keys[0]);
  memcpy(r->ptr, ptrs + half + 1, (r->n + 1) * sizeof ptrs[0]);
  return keys[half];
}

/* Append KEY/VALUE to the rightmost leaf when KEY is above every key and
 * the leaf has room.  1 if done. */
static int append_tail(struct map_index *ix, uintptr_t key, void *value) {
  node *t = ix->tail;
  if (!t && ix->root) {
    for (t = ix->root; !t->leaf; t = t->ptr[t->n])
      ;
    ix->tail = t;
  }
  if (!t || t->n == CAP || !t->n || key <= t->key[t->n - 1])
    return 0;
  t->key[t->n] = key;
  t->ptr[t->n] = value;
  t->n++;
  ix->count++;
  return 1;
}

int map_index_insert(struct map_index *ix, uintptr_t key, void *value) {
  if (append_tail(ix, key, value))
    return 0;
  /* A split moves keys out of their leaf and may make a new rightmost
   * one. */
  ix->hint = ix->tail = NULL;
  if (!ix->root) {
    node *lf = node_new(ix, 1);
    if (!lf)
      return -1;
    lf->n = 1;
    lf->key[0] = key;
    lf->ptr[0] = value;
    ix->root = lf;
    ix->height = 1;
    ix->count = 1;
    return 0;
  }
  struct path p;
  walk_down(ix, key, &p);
  /* Every full node on the way up splits, and a full root makes a new
   * root: allocate them all first so that a failure changes nothing. */
  node *spare[MAX_HEIGHT + 1];
  int need = 0, l = ix->height - 1;
  while (l >= 0 && p.nodes[l]->n == CAP) {
    l--;
    need++;
  }
  if (l < 0)
    need++;
  for (int i = 0; i < need; i++) {
    spare[i] = node_new(ix, 0);
    if (!spare[i]) {
      while (i-- > 0)
        block_pool_put(&ix->nodes, spare[i], sizeof(node));
      return -1;
    }
  }
  int used = 0;
  void *ptr = value;
  l = ix->height - 1;
  unsigned pos = count_lt(p.nodes[l], key);
  for (; l >= 0; l--) {
    node *nd = p.nodes[l];
    if (l < ix->height - 1)
      pos = p.idx[l];
    if (nd->n < CAP) {
      put(nd, pos, key, ptr);
      ix->count++;
      return 0;
    }
    node *r = spare[used++];
    r->leaf = nd->leaf;
    key = split(nd, r, pos, key, ptr);
    ptr = r;
  }
  node *root = spare[used];
  root->leaf = 0;
  root->n = 1;
  root->key[0] = key;
  root->ptr[0] = ix->root;
  root->ptr[1] = ptr;
  ix->root = root;
  ix->height++;
  ix->count++;
  return 0;
}

/* Remove key I and the pointer beside it (a leaf's own; an inner node's
 * right child) from ND. */
static void take_out(node *nd, unsigned i) {
  unsigned pp = nd->leaf ? i : i + 1;
  unsigned nptr = nd->leaf ? nd->n : nd->n + 1;
  if (i + 1 < nd->n)
    memmove(&nd->key[i], &nd->key[i + 1], (nd->n - i - 1) * sizeof nd->key[0]);
  if (pp + 1 < nptr)
    memmove(&nd->ptr[pp], &nd->ptr[pp + 1],
            (nptr - pp - 1) * sizeof nd->ptr[0]);
  nd->n--;
}

/* Child CI of PARENT has fewer than MIN keys: borrow one from a
 * neighbour, or merge with one (PARENT then loses a key). */
static void repair(struct map_index *ix, node *parent, unsigned ci) {
  node *nd = parent->ptr[ci];
  node *left = ci > 0 ? parent->ptr[ci - 1] : NULL;
  node *right = ci < parent->n ? parent->ptr[ci + 1] : NULL;
  if (left && left->n > MIN) {
    memmove(&nd->key[1], &nd->key[0], nd->n * sizeof nd->key[0]);
    memmove(&nd->ptr[1], &nd->ptr[0],
            (nd->n + (nd->leaf ? 0 : 1)) * sizeof nd->ptr[0]);
    if (nd->leaf) {
      nd->key[0] = left->key[left->n - 1];
      nd->ptr[0] = left->ptr[left->n - 1];
      parent->key[ci - 1] = nd->key[0];
    } else {
      nd->key[0] = parent->key[ci - 1];
      nd->ptr[0] = left->ptr[left->n];
      parent->key[ci - 1] = left->key[left->n - 1];
    }
    nd->n++;
    left->n--;
    return;
  }
  if (right && right->n > MIN) {
    if (nd->leaf) {
      nd->key[nd->n] = right->key[0];
      nd->ptr[nd->n] = right->ptr[0];
      nd->n++;
      take_out(right, 0);
      /* (take_out of a leaf drops ptr[0] with key[0]) */
      parent->key[ci] = right->key[0];
    } else {
      nd->key[nd->n] = parent->key[ci];
      nd->ptr[nd->n + 1] = right->ptr[0];
      nd->n++;
      parent->key[ci] = right->key[0];
      memmove(&right->key[0], &right->key[1],
              (right->n - 1) * sizeof right->key[0]);
      memmove(&right->ptr[0], &right->ptr[1], right->n * sizeof right->ptr[0]);
      right->n--;
    }
    return;
  }
  /* Merge the pair (L, R) separated by parent key S into L. */
  unsigned s = left ? ci - 1 : ci;
  node *l = left ? left : nd, *r = left ? nd : right;
  if (l->leaf) {
    memcpy(&l->key[l->n], r->key, r->n * sizeof r->key[0]);
    memcpy(&l->ptr[l->n], r->ptr, r->n * sizeof r->ptr[0]);
    l->n += r->n;
    l->next = r->next;
    if (r->next)
      r->next->prev = l;
  } else {
    l->key[l->n] = parent->key[s];
    memcpy(&l->key[l->n + 1], r->key, r->n * sizeof r->key[0]);
    memcpy(&l->ptr[l->n + 1], r->ptr, (r->n + 1) * sizeof r->ptr[0]);
    l->n += 1 + r->n;
  }
  block_pool_put(&ix->nodes, r, sizeof(node));
  take_out(parent, s);
}

/* Remove KEY from the hinted leaf when it is there and the leaf keeps
 * enough keys: no repair, and no separator above changes (a separator
 * only has to be <= the keys right of it).  1 if done. */
static int remove_hinted(struct map_index *ix, uintptr_t key) {
  node *lf = ix->hint;
  if (!lf || (lf->n <= MIN && !(lf == ix->root && lf->n > 1)))
    return 0;
  unsigned i = count_lt(lf, key);
  if (i >= lf->n || lf->key[i] != key)
    return 0;
  take_out(lf, i);
  ix->count--;
  return 1;
}

void map_index_remove(struct map_index *ix, uintptr_t key) {
  if (!ix->root)
    return;
  if (remove_hinted(ix, key))
    return;
  ix->hint = ix->tail = NULL; /* repairs may merge leaves */
  struct path p;
  walk_down(ix, key, &p);
  int l = ix->height - 1;
  node *lf = p.nodes[l];
  unsigned i = count_lt(lf, key);
  if (i >= lf->n || lf->key[i] != key)
    return; /* not present */
  take_out(lf, i);
  ix->count--;
  for (; l > 0 && p.nodes[l]->n < MIN; l--)
    repair(ix, p.nodes[l - 1], p.idx[l - 1]);
  node *root = ix->root;
  if (root->n == 0) {
    ix->root = root->leaf ? NULL : root->ptr[0];
    ix->height--;
    block_pool_put(&ix->nodes, root, sizeof(node));
  }
}

void map_index_foreach(const struct map_index *ix,
                       int (*fn)(void *value, void *arg), void *arg) {
  const node *lf = ix->root;
  while (lf && !lf->leaf)
    lf = lf->ptr[0];
  for (; lf; lf = lf->next)
    for (unsigned i = 0; i < lf->n; i++)
      if (fn(lf->ptr[i], arg))
        return;
}

void map_index_clear(struct map_index *ix) {
  block_pool_release(&ix->nodes, sizeof(node));
  ix->hint = ix->tail = NULL;
  ix->root = NULL;
  ix->count = 0;
  ix->height = 0;
}

/* ---- invariants, for the tests ---- */

struct check {
  const node *last_leaf; /* the leaf before the next one visited */
  size_t count;
};

/* Keys of ND's subtree lie in [LO, HI) (HAS_HI: HI applies). */
static int check_node(const node *nd, int depth, int height, const node *root,
                      uintptr_t lo, uintptr_t hi, int has_hi,
                      struct check *c) {
  if (nd->n > CAP || (nd != root && nd->n < MIN) || nd->n == 0)
    return -1;
  for (unsigned i = 0; i < nd->n; i++) {
    if (nd->key[i] < lo || (has_hi && nd->key[i] >= hi))
      return -1;
    if (i && nd->key[i] <= nd->key[i - 1])
      return -1;
  }
  if (nd->leaf) {
    if (depth != height - 1 || nd->prev != c->last_leaf ||
        (c->last_leaf && c->last_leaf->next != nd))
      return -1;
    c->last_leaf = nd;
    c->count += nd->n;
    return 0;
  }
  for (unsigned i = 0; i <= nd->n; i++) {
    uintptr_t clo = i ? nd->key[i - 1] : lo;
    uintptr_t chi = i < nd->n ? nd->key[i] : hi;
    int chas = i < nd->n ? 1 : has_hi;
    if (check_node(nd->ptr[i], depth + 1, height, root, clo, chi, chas, c))
      return -1;
  }
  return 0;
}

int map_index_check(const struct map_index *ix) {
  if (!ix->root)
    return ix->count == 0 && ix->height == 0 ? 0 : -1;
  struct check c = {NULL, 0};
  if (check_node(ix->root, 0, ix->height, ix->root, 0, 0, 0, &c))
    return -1;
  if (c.last_leaf->next || c.count != ix->count)
    return -1;
  return ix->height;
}
