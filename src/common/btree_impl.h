/* The operations of one B+ tree type (see btree.h), generated as static
 * inline functions PREFIX_... for the tree BT_TREE declared with
 * BTREE_TYPES(BT_TREE, BT_NODE, BT_CAP, BT_VALS, BT_MAXES).  Include once
 * per source file and tree type; the BT_ parameters are undefined at the
 * end.
 *
 * Changes find their leaf (from the cursor or by a walk down), then repair
 * the path bottom-up: a full node splits in two, a node below half full
 * borrows from a neighbour or merges with it, and with BT_MAXES the maxima
 * of the children on the path are brought up to date.  Whatever may move
 * a node (a split, a merge, a borrow, a new or lost root) forgets the
 * cursor and the tail. */
#include "btree.h"

#include <string.h>

#if !defined(BT_TREE) || !defined(BT_NODE) || !defined(BT_PREFIX) ||         \
    !defined(BT_CAP) || !defined(BT_VALS) || !defined(BT_MAXES)
#error "btree_impl.h: define the BT_ parameters first (see btree.h)"
#endif

#define BT_CAT2(a, b) a##_##b
#define BT_CAT(a, b) BT_CAT2(a, b)
#define BT_(x) BT_CAT(BT_PREFIX, x)
#define BT_MIN (BT_CAP / 2)
/* The rare paths (splits, repairs, checks) stay out of line: inlined
 * into every caller they made a one-mapping launch's code larger than the
 * instruction cache keeps (callgrind: 40 more I1 misses, 20 ns, per 4 KiB
 * launch). */
#ifndef BT_COLD
#define BT_COLD __attribute__((noinline, cold, unused))
#endif
#define bt_node struct BT_NODE
#define bt_tree struct BT_TREE

/* A key's place: leaf LF (NULL: none) and slot I. */
struct BT_(pos) {
  bt_node *lf;
  unsigned i;
};

static inline bt_node *BT_(node_new)(bt_tree *t, int leaf) {
  bt_node *nd = block_pool_get(&t->nodes, sizeof(bt_node));
  if (!nd)
    return NULL;
  nd->n = 0;
  nd->leaf = (uint32_t)leaf;
  if (leaf)
    nd->u.lf.prev = nd->u.lf.next = NULL;
  return nd;
}

static inline void BT_(node_put)(bt_tree *t, bt_node *nd) {
  block_pool_put(&t->nodes, nd, sizeof(bt_node));
}

/* The largest power of two <= BT_CAP: the first step of BT_(count). */
#define BT_STEP0                                                             \
  (BT_CAP >= 64   ? 64                                                       \
   : BT_CAP >= 32 ? 32                                                       \
   : BT_CAP >= 16 ? 16                                                       \
   : BT_CAP >= 8  ? 8                                                        \
   : BT_CAP >= 4  ? 4                                                        \
   : BT_CAP >= 2  ? 2                                                        \
                  : 1)
_Static_assert(BT_CAP < 128, "btree_impl.h: BT_STEP0 covers up to 127 keys");

/* Number of keys of ND that are <= K (LE), or < K (!LE).  The keys are
 * sorted, so the count C grows by halving steps (BT_STEP0 down to 1): by
 * STEP when key C + STEP - 1 is in use and still passes.  A fixed number
 * of steps, written out, with no branch on the keys to mispredict: about
 * 35 instructions for a node of 14 keys, where counting key by key took
 * about five a key.  A slot past the node's count may be read (within
 * the array), never used. */
static inline unsigned BT_(count_step)(const bt_node *nd, uintptr_t k,
                                       int le, unsigned c, unsigned step) {
  if (step > BT_STEP0 || step > nd->n) /* the node's fill, not its keys */
    return c;
  unsigned i = c + step - 1 < BT_CAP ? c + step - 1 : BT_CAP - 1;
  uintptr_t key = nd->key[i];
  unsigned in = (c + step <= nd->n) & (le ? key <= k : key < k);
  return c + (step & -in);
}

static inline unsigned BT_(count)(const bt_node *nd, uintptr_t k, int le) {
  unsigned c = 0; /* the steps written out: constants, no loop */
  c = BT_(count_step)(nd, k, le, c, 64);
  c = BT_(count_step)(nd, k, le, c, 32);
  c = BT_(count_step)(nd, k, le, c, 16);
  c = BT_(count_step)(nd, k, le, c, 8);
  c = BT_(count_step)(nd, k, le, c, 4);
  c = BT_(count_step)(nd, k, le, c, 2);
  return BT_(count_step)(nd, k, le, c, 1);
}

static inline unsigned BT_(count_le)(const bt_node *nd, uintptr_t k) {
  return BT_(count)(nd, k, 1);
}

static inline unsigned BT_(count_lt)(const bt_node *nd, uintptr_t k) {
  return BT_(count)(nd, k, 0);
}

/* Ask for every line of ND at once: a walk reads its keys and then one of
 * its pointers or values, and each would otherwise wait for the one
 * before (the first line is asked for by the caller's read). */
static inline void BT_(fetch)(const bt_node *nd) {
  for (size_t off = 64; off < sizeof *nd; off += 64)
    __builtin_prefetch((const char *)nd + off);
}

#if BT_MAXES
/* The largest first word in ND's subtree. */
static inline uintptr_t BT_(node_max)(const bt_node *nd) {
  uintptr_t m = 0;
  if (nd->leaf) {
    for (unsigned i = 0; i < nd->n; i++)
      m = nd->u.lf.val[0][i] > m ? nd->u.lf.val[0][i] : m;
  } else {
    for (unsigned i = 0; i <= nd->n; i++)
      m = nd->u.in.max[i] > m ? nd->u.in.max[i] : m;
  }
  return m;
}
#endif

/* Inner node ND is level L of the cursor's path, and child C the way
 * down: that child, its lines asked for. */
static inline bt_node *BT_(step)(bt_tree *t, int l, bt_node *nd, unsigned c) {
  t->path[l] = nd;
  t->idx[l] = c;
  nd = nd->u.in.child[c];
  BT_(fetch)(nd);
  return nd;
}

/* Leaf LF ends the cursor's path at level L. */
static inline bt_node *BT_(arrive)(bt_tree *t, int l, bt_node *lf) {
  t->path[l] = lf;
  t->walked = l + 1;
  return lf;
}

/* Walk down to the leaf whose key range holds K; the path becomes the
 * cursor.  The leaf, or NULL when the tree is empty. */
static inline bt_node *BT_(walk)(bt_tree *t, uintptr_t k) {
  bt_node *nd = t->root;
  int l = 0;
  if (!nd)
    return NULL;
  for (; !nd->leaf; l++)
    nd = BT_(step)(t, l, nd, BT_(count_le)(nd, k));
  return BT_(arrive)(t, l, nd);
}

/* The leaf whose key range holds K, with its path in the cursor: the
 * cursor's own when K lies between its leaf's first and last keys, else
 * by a walk.  NULL when the tree is empty. */
static inline bt_node *BT_(locate)(bt_tree *t, uintptr_t k) {
  if (t->walked) {
    bt_node *lf = t->path[t->walked - 1];
    if (lf->n && lf->key[0] <= k && k <= lf->key[lf->n - 1])
      return lf;
  }
  return BT_(walk)(t, k);
}

/* Forget the cursor and the tail (a node may move). */
static inline void BT_(forget)(bt_tree *t) {
  t->walked = 0;
  t->tail = NULL;
}

/* ------------------------------------------------------------ lookups */

/* The greatest key <= K. */
static inline struct BT_(pos) BT_(floor)(bt_tree *t, uintptr_t k) {
  bt_node *lf = BT_(walk)(t, k);
  if (!lf)
    return (struct BT_(pos)){NULL, 0};
  unsigned j = BT_(count_le)(lf, k);
  if (j)
    return (struct BT_(pos)){lf, j - 1};
  /* Every key of the leaves before this one is below K. */
  lf = lf->u.lf.prev;
  return (struct BT_(pos)){lf, lf ? lf->n - 1 : 0};
}

/* The least key > K (ABOVE) or >= K (!ABOVE). */
static inline struct BT_(pos) BT_(next)(bt_tree *t, uintptr_t k, int above) {
  bt_node *lf = BT_(walk)(t, k);
  if (!lf)
    return (struct BT_(pos)){NULL, 0};
  unsigned j = above ? BT_(count_le)(lf, k) : BT_(count_lt)(lf, k);
  if (j < lf->n)
    return (struct BT_(pos)){lf, j};
  return (struct BT_(pos)){lf->u.lf.next, 0};
}

/* The greatest key <= K into *BELOW and the least key > K into *ABOVE,
 * from one walk. */
static inline void BT_(around)(bt_tree *t, uintptr_t k, struct BT_(pos) *below,
                               struct BT_(pos) *above) {
  bt_node *lf = BT_(walk)(t, k);
  below->lf = above->lf = NULL;
  below->i = above->i = 0;
  if (!lf)
    return;
  unsigned j = BT_(count_le)(lf, k);
  if (j) {
    *below = (struct BT_(pos)){lf, j - 1};
  } else if (lf->u.lf.prev) {
    below->lf = lf->u.lf.prev;
    below->i = below->lf->n - 1;
  }
  if (j < lf->n)
    *above = (struct BT_(pos)){lf, j};
  else
    above->lf = lf->u.lf.next;
}

#if BT_MAXES
/* The least key whose first word is >= V (first fit), with its path in
 * the cursor. */
static inline struct BT_(pos) BT_(first_fit)(bt_tree *t, uintptr_t v) {
  bt_node *nd = t->root;
  int l = 0;
  t->walked = 0; /* the path is rewritten */
  if (!nd)
    return (struct BT_(pos)){NULL, 0};
  for (; !nd->leaf; l++) {
    unsigned c = 0;
    while (c <= nd->n && nd->u.in.max[c] < v)
      c++;
    if (c > nd->n)
      return (struct BT_(pos)){NULL, 0};
    nd = BT_(step)(t, l, nd, c);
  }
  BT_(arrive)(t, l, nd);
  for (unsigned i = 0; i < nd->n; i++)
    if (nd->u.lf.val[0][i] >= v)
      return (struct BT_(pos)){nd, i};
  return (struct BT_(pos)){NULL, 0};
}
#endif

/* The leftmost leaf, or NULL. */
static inline bt_node *BT_(first_leaf)(const bt_tree *t) {
  bt_node *nd = t->root;
  while (nd && !nd->leaf)
    nd = nd->u.in.child[0];
  return nd;
}

/* ------------------------------------------------------------- insert */

/* Put KEY with VALS at slot POS of leaf LF (not full). */
static inline void BT_(leaf_put)(bt_node *lf, unsigned pos, uintptr_t key,
                                 const uintptr_t *vals) {
  unsigned m = lf->n - pos;
  memmove(&lf->key[pos + 1], &lf->key[pos], m * sizeof lf->key[0]);
  lf->key[pos] = key;
  for (int c = 0; c < BT_VALS; c++) {
    memmove(&lf->u.lf.val[c][pos + 1], &lf->u.lf.val[c][pos],
            m * sizeof lf->u.lf.val[c][0]);
    lf->u.lf.val[c][pos] = vals[c];
  }
  lf->n++;
}

/* Put separator KEY and child R (largest first word RMAX) right of child C
 * of inner node ND (not full). */
static inline void BT_(inner_put)(bt_node *nd, unsigned c, uintptr_t key,
                                  bt_node *r, uintptr_t rmax) {
  unsigned m = nd->n - c;
  memmove(&nd->key[c + 1], &nd->key[c], m * sizeof nd->key[0]);
  memmove(&nd->u.in.child[c + 2], &nd->u.in.child[c + 1], m * sizeof r);
  nd->key[c] = key;
  nd->u.in.child[c + 1] = r;
#if BT_MAXES
  memmove(&nd->u.in.max[c + 2], &nd->u.in.max[c + 1], m * sizeof rmax);
  nd->u.in.max[c + 1] = rmax;
#else
  (void)rmax;
#endif
  nd->n++;
}

/* Full leaf LF: add KEY with VALS at POS and move the upper half to the
 * empty leaf R.  Returns the separator (R's first key). */
BT_COLD static uintptr_t BT_(leaf_split)(bt_node *lf, bt_node *r, unsigned pos,
                                        uintptr_t key, const uintptr_t *vals) {
  unsigned half = (BT_CAP + 1) / 2; /* keys kept on the left */
  r->n = 0;
  if (pos < half) {
    /* The new key stays left: move the upper keys, then insert. */
    unsigned mv = BT_CAP - (half - 1);
    memcpy(r->key, &lf->key[half - 1], mv * sizeof r->key[0]);
    for (int c = 0; c < BT_VALS; c++)
      memcpy(r->u.lf.val[c], &lf->u.lf.val[c][half - 1],
             mv * sizeof r->u.lf.val[c][0]);
    r->n = mv;
    lf->n = half - 1;
    BT_(leaf_put)(lf, pos, key, vals);
  } else {
    unsigned mv = BT_CAP - half;
    memcpy(r->key, &lf->key[half], mv * sizeof r->key[0]);
    for (int c = 0; c < BT_VALS; c++)
      memcpy(r->u.lf.val[c], &lf->u.lf.val[c][half],
             mv * sizeof r->u.lf.val[c][0]);
    r->n = mv;
    lf->n = half;
    BT_(leaf_put)(r, pos - half, key, vals);
  }
  r->u.lf.next = lf->u.lf.next;
  r->u.lf.prev = lf;
  if (lf->u.lf.next)
    lf->u.lf.next->u.lf.prev = r;
  lf->u.lf.next = r;
  return r->key[0];
}

/* Full inner node ND: add separator KEY and child CR (largest first word
 * CMAX) right of child C, then move the upper half to the empty inner
 * node R.  Returns the key that goes up. */
BT_COLD static uintptr_t BT_(inner_split)(bt_node *nd, bt_node *r, unsigned c,
                                         uintptr_t key, bt_node *cr,
                                         uintptr_t cmax) {
  uintptr_t keys[BT_CAP + 1];
  bt_node *kids[BT_CAP + 2];
  memcpy(keys, nd->key, c * sizeof keys[0]);
  keys[c] = key;
  memcpy(keys + c + 1, nd->key + c, (BT_CAP - c) * sizeof keys[0]);
  memcpy(kids, nd->u.in.child, (c + 1) * sizeof kids[0]);
  kids[c + 1] = cr;
  memcpy(kids + c + 2, nd->u.in.child + c + 1, (BT_CAP - c) * sizeof kids[0]);
  unsigned half = (BT_CAP + 1) / 2; /* keys kept; keys[half] goes up */
  nd->n = half;
  memcpy(nd->key, keys, half * sizeof keys[0]);
  memcpy(nd->u.in.child, kids, (half + 1) * sizeof kids[0]);
  r->n = BT_CAP - half;
  memcpy(r->key, keys + half + 1, r->n * sizeof keys[0]);
  memcpy(r->u.in.child, kids + half + 1, (r->n + 1) * sizeof kids[0]);
#if BT_MAXES
  uintptr_t maxs[BT_CAP + 2];
  memcpy(maxs, nd->u.in.max, (c + 1) * sizeof maxs[0]);
  maxs[c + 1] = cmax;
  memcpy(maxs + c + 2, nd->u.in.max + c + 1, (BT_CAP - c) * sizeof maxs[0]);
  memcpy(nd->u.in.max, maxs, (half + 1) * sizeof maxs[0]);
  memcpy(r->u.in.max, maxs + half + 1, (r->n + 1) * sizeof maxs[0]);
#else
  (void)cmax;
#endif
  return keys[half];
}

/* Full rightmost leaf LF, KEY above all its keys: R, empty, gets KEY
 * alone and LF stays full (keys added in order fill their leaves).
 * Returns the separator. */
BT_COLD static uintptr_t BT_(leaf_split_end)(bt_node *lf, bt_node *r,
                                            uintptr_t key,
                                            const uintptr_t *vals) {
  r->n = 0;
  BT_(leaf_put)(r, 0, key, vals);
  r->u.lf.prev = lf;
  lf->u.lf.next = r;
  return key;
}

/* Full rightmost inner node ND gets separator KEY and child CR (largest
 * first word CMAX) at its right end: ND keeps all but its last key, which
 * goes up (returned), and the empty inner node R gets KEY and the two
 * rightmost children. */
BT_COLD static uintptr_t BT_(inner_split_end)(bt_node *nd, bt_node *r,
                                             uintptr_t key, bt_node *cr,
                                             uintptr_t cmax) {
  r->n = 1;
  r->key[0] = key;
  r->u.in.child[0] = nd->u.in.child[BT_CAP];
  r->u.in.child[1] = cr;
#if BT_MAXES
  r->u.in.max[0] = nd->u.in.max[BT_CAP];
  r->u.in.max[1] = cmax;
#else
  (void)cmax;
#endif
  nd->n = BT_CAP - 1;
  return nd->key[BT_CAP - 1];
}

#if !BT_MAXES
/* Append KEY with VALS to the rightmost leaf when KEY is above every key
 * and the leaf has room (keys added in order need no walk).  1 if done. */
static inline int BT_(append)(bt_tree *t, uintptr_t key,
                              const uintptr_t *vals) {
  bt_node *lf = t->tail;
  if (!lf && t->root) {
    for (lf = t->root; !lf->leaf; lf = lf->u.in.child[lf->n])
      ;
    t->tail = lf;
  }
  if (!lf || lf->n == BT_CAP || !lf->n || key <= lf->key[lf->n - 1])
    return 0;
  lf->key[lf->n] = key;
  for (int c = 0; c < BT_VALS; c++)
    lf->u.lf.val[c][lf->n] = vals[c];
  lf->n++;
  t->count++;
  return 1;
}
#endif

/* Add KEY (not present) with the BT_VALS words VALS.  0, or -1 when out of
 * memory (the tree is then unchanged). */
static inline int BT_(insert)(bt_tree *t, uintptr_t key,
                              const uintptr_t *vals) {
#if !BT_MAXES
  if (BT_(append)(t, key, vals))
    return 0;
#endif
  if (!t->root) {
    bt_node *lf = BT_(node_new)(t, 1);
    if (!lf)
      return -1;
    BT_(leaf_put)(lf, 0, key, vals);
    t->root = lf;
    t->height = 1;
    t->count = 1;
    BT_(forget)(t);
    return 0;
  }
  bt_node *lf = BT_(locate)(t, key);
  int h = t->height;
  /* Every full node on the way up splits, and a full root makes a new
   * root: allocate them all first so that a failure changes nothing. */
  bt_node *spare[BTREE_MAX_HEIGHT + 1];
  int need = 0, l = h - 1;
  while (l >= 0 && t->path[l]->n == BT_CAP) {
    l--;
    need++;
  }
  if (l < 0)
    need++;
  for (int i = 0; i < need; i++) {
    spare[i] = BT_(node_new)(t, i == 0 && lf->n == BT_CAP);
    if (!spare[i]) {
      while (i-- > 0)
        BT_(node_put)(t, spare[i]);
      return -1;
    }
  }
  t->count++;
  unsigned pos = BT_(count_lt)(lf, key);
  l = h - 1;
  if (lf->n < BT_CAP) {
    BT_(leaf_put)(lf, pos, key, vals);
  } else {
    /* Split upwards while nodes are full: SEP and R go into the parent.
     * A key above every other splits the right edge unevenly (END): the
     * nodes it leaves behind stay full, and only the rightmost node of
     * each level may be less than half full. */
    int used = 0, end = !lf->u.lf.next && pos == BT_CAP;
    bt_node *r = spare[used++];
    uintptr_t sep = end ? BT_(leaf_split_end)(lf, r, key, vals)
                        : BT_(leaf_split)(lf, r, pos, key, vals);
    bt_node *left = lf;
    BT_(forget)(t);
    for (l--; l >= 0; l--) {
      bt_node *par = t->path[l];
      unsigned c = t->idx[l];
      uintptr_t rmax = 0;
#if BT_MAXES
      par->u.in.max[c] = BT_(node_max)(left);
      rmax = BT_(node_max)(r);
#endif
      if (par->n < BT_CAP) {
        BT_(inner_put)(par, c, sep, r, rmax);
        break;
      }
      bt_node *pr = spare[used++];
      pr->leaf = 0;
      sep = end ? BT_(inner_split_end)(par, pr, sep, r, rmax)
                : BT_(inner_split)(par, pr, c, sep, r, rmax);
      left = par;
      r = pr;
    }
    if (l < 0) {
      bt_node *root = spare[used];
      root->leaf = 0;
      root->n = 1;
      root->key[0] = sep;
      root->u.in.child[0] = left;
      root->u.in.child[1] = r;
#if BT_MAXES
      root->u.in.max[0] = BT_(node_max)(left);
      root->u.in.max[1] = BT_(node_max)(r);
#endif
      t->root = root;
      t->height++;
      return 0;
    }
  }
#if BT_MAXES
  /* Above the highest change the subtrees only gained VALS[0]. */
  for (l--; l >= 0; l--) {
    uintptr_t *m = &t->path[l]->u.in.max[t->idx[l]];
    if (*m >= vals[0])
      break;
    *m = vals[0];
  }
#endif
  return 0;
}

/* ------------------------------------------------------------- remove */

/* Remove slot I of leaf LF. */
static inline void BT_(leaf_take)(bt_node *lf, unsigned i) {
  unsigned m = lf->n - i - 1;
  memmove(&lf->key[i], &lf->key[i + 1], m * sizeof lf->key[0]);
  for (int c = 0; c < BT_VALS; c++)
    memmove(&lf->u.lf.val[c][i], &lf->u.lf.val[c][i + 1],
            m * sizeof lf->u.lf.val[c][0]);
  lf->n--;
}

/* Remove key I of inner node ND with the child right of it (J = I + 1),
 * or, with LEFT, the child left of it (J = I). */
static inline void BT_(inner_take)(bt_node *nd, unsigned i, int left) {
  unsigned j = left ? i : i + 1;
  memmove(&nd->key[i], &nd->key[i + 1], (nd->n - i - 1) * sizeof nd->key[0]);
  memmove(&nd->u.in.child[j], &nd->u.in.child[j + 1],
          (nd->n - j) * sizeof nd->u.in.child[0]);
#if BT_MAXES
  memmove(&nd->u.in.max[j], &nd->u.in.max[j + 1],
          (nd->n - j) * sizeof nd->u.in.max[0]);
#endif
  nd->n--;
}

/* Child CI of PAR has fewer than BT_MIN keys: borrow one from a neighbour,
 * or merge with one (PAR then loses a key).  With BT_MAXES the maxima in
 * PAR of the children involved are brought up to date. */
BT_COLD static void BT_(repair)(bt_tree *t, bt_node *par, unsigned ci) {
  bt_node *nd = par->u.in.child[ci];
  bt_node *left = ci > 0 ? par->u.in.child[ci - 1] : NULL;
  bt_node *right = ci < par->n ? par->u.in.child[ci + 1] : NULL;
  if (left && left->n > BT_MIN) {
    if (nd->leaf) {
      uintptr_t v[BT_VALS];
      for (int c = 0; c < BT_VALS; c++)
        v[c] = left->u.lf.val[c][left->n - 1];
      BT_(leaf_put)(nd, 0, left->key[left->n - 1], v);
      left->n--;
      par->key[ci - 1] = nd->key[0];
    } else {
      uintptr_t lmax = 0;
#if BT_MAXES
      lmax = left->u.in.max[left->n];
#endif
      /* Make room at the front: the new child goes in at 0 and the
       * separator from PAR becomes key 0. */
      BT_(inner_put)(nd, 0, par->key[ci - 1], nd->u.in.child[0], 0);
#if BT_MAXES
      nd->u.in.max[1] = nd->u.in.max[0];
      nd->u.in.max[0] = lmax;
#else
      (void)lmax;
#endif
      nd->u.in.child[0] = left->u.in.child[left->n];
      par->key[ci - 1] = left->key[left->n - 1];
      left->n--;
    }
#if BT_MAXES
    par->u.in.max[ci - 1] = BT_(node_max)(left);
    par->u.in.max[ci] = BT_(node_max)(nd);
#endif
    return;
  }
  if (right && right->n > BT_MIN) {
    if (nd->leaf) {
      nd->key[nd->n] = right->key[0];
      for (int c = 0; c < BT_VALS; c++)
        nd->u.lf.val[c][nd->n] = right->u.lf.val[c][0];
      nd->n++;
      BT_(leaf_take)(right, 0);
      par->key[ci] = right->key[0];
    } else {
      nd->key[nd->n] = par->key[ci];
      nd->u.in.child[nd->n + 1] = right->u.in.child[0];
#if BT_MAXES
      nd->u.in.max[nd->n + 1] = right->u.in.max[0];
#endif
      nd->n++;
      par->key[ci] = right->key[0];
      BT_(inner_take)(right, 0, 1);
    }
#if BT_MAXES
    par->u.in.max[ci] = BT_(node_max)(nd);
    par->u.in.max[ci + 1] = BT_(node_max)(right);
#endif
    return;
  }
  /* Merge the pair (L, R) separated by PAR's key S into L. */
  unsigned s = left ? ci - 1 : ci;
  bt_node *l = left ? left : nd, *r = left ? nd : right;
  if (l->leaf) {
    memcpy(&l->key[l->n], r->key, r->n * sizeof r->key[0]);
    for (int c = 0; c < BT_VALS; c++)
      memcpy(&l->u.lf.val[c][l->n], r->u.lf.val[c],
             r->n * sizeof r->u.lf.val[c][0]);
    l->n += r->n;
    l->u.lf.next = r->u.lf.next;
    if (r->u.lf.next)
      r->u.lf.next->u.lf.prev = l;
  } else {
    l->key[l->n] = par->key[s];
    memcpy(&l->key[l->n + 1], r->key, r->n * sizeof r->key[0]);
    memcpy(&l->u.in.child[l->n + 1], r->u.in.child,
           (r->n + 1) * sizeof r->u.in.child[0]);
#if BT_MAXES
    memcpy(&l->u.in.max[l->n + 1], r->u.in.max,
           (r->n + 1) * sizeof r->u.in.max[0]);
#endif
    l->n += 1 + r->n;
  }
  BT_(node_put)(t, r);
  BT_(inner_take)(par, s, 0);
#if BT_MAXES
  par->u.in.max[s] = BT_(node_max)(l);
#endif
}

/* The leaf holding KEY, its slot into *I, with its path in the cursor;
 * NULL when KEY is not present. */
static inline bt_node *BT_(find)(bt_tree *t, uintptr_t key, unsigned *i) {
  bt_node *lf = BT_(locate)(t, key);
  if (!lf)
    return NULL;
  *i = BT_(count_lt)(lf, key);
  return *i < lf->n && lf->key[*i] == key ? lf : NULL;
}

/* Remove KEY (if it is not present, nothing changes). */
static inline void BT_(remove)(bt_tree *t, uintptr_t key) {
  unsigned i;
  bt_node *lf = BT_(find)(t, key, &i);
  if (!lf)
    return;
#if BT_MAXES
  uintptr_t gone = lf->u.lf.val[0][i];
#endif
  BT_(leaf_take)(lf, i);
  t->count--;
  int l = t->height - 1;
  if (l > 0 && lf->n < BT_MIN) {
    BT_(forget)(t);
    for (; l > 0 && t->path[l]->n < BT_MIN; l--)
      BT_(repair)(t, t->path[l - 1], t->idx[l - 1]);
  }
#if BT_MAXES
  /* The maxima above the repairs: where a subtree's is unchanged, so
   * are those above it. */
  for (; l > 0 && gone; l--) {
    uintptr_t *m = &t->path[l - 1]->u.in.max[t->idx[l - 1]];
    uintptr_t nm = BT_(node_max)(t->path[l]);
    if (*m == nm)
      break;
    *m = nm;
  }
#endif
  bt_node *root = t->root;
  if (root->n == 0) {
    t->root = root->leaf ? NULL : root->u.in.child[0];
    t->height--;
    BT_(node_put)(t, root);
    BT_(forget)(t);
  }
}

/* KEY (present; if not, nothing changes) becomes NKEY, with the words
 * VALS: NKEY must lie above the key before KEY and below the one after it
 * (the order does not change).  Never allocates. */
static inline void BT_(set)(bt_tree *t, uintptr_t key, uintptr_t nkey,
                            const uintptr_t *vals) {
  unsigned i;
  bt_node *lf = BT_(find)(t, key, &i);
  if (!lf)
    return;
#if BT_MAXES
  uintptr_t old = lf->u.lf.val[0][i], nv = vals[0];
#endif
  lf->key[i] = nkey;
  for (int c = 0; c < BT_VALS; c++)
    lf->u.lf.val[c][i] = vals[c];
  for (int l = t->height - 2; l >= 0; l--) {
    bt_node *nd = t->path[l];
    unsigned c = t->idx[l];
    /* Keep NKEY inside child C's key range: the keys left of it are all
     * below NKEY and those right of it above, so both moves are safe. */
    if (c > 0 && nd->key[c - 1] > nkey)
      nd->key[c - 1] = nkey;
    if (c < nd->n && nd->key[c] <= nkey)
      nd->key[c] = nkey + 1;
#if BT_MAXES
    uintptr_t *m = &nd->u.in.max[c];
    if (nv >= old)
      *m = *m > nv ? *m : nv;
    else if (*m == old)
      *m = BT_(node_max)(t->path[l + 1]);
#endif
  }
}

/* --------------------------------------------------------------- misc */

/* Free every node; the tree is then empty. */
BT_COLD static void BT_(clear)(bt_tree *t) {
  block_pool_release(&t->nodes, sizeof(bt_node));
  t->root = NULL;
  t->count = 0;
  t->height = 0;
  BT_(forget)(t);
}

struct BT_(check) {
  const bt_node *last_leaf; /* the leaf before the next one visited */
  size_t count;
};

/* Keys of ND's subtree lie in [LO, HI) (HAS_HI: HI applies); with
 * BT_MAXES its largest first word into *MAX. */
BT_COLD static int BT_(check_node)(const bt_node *nd, int depth, int height,
                                  const bt_node *root, uintptr_t lo,
                                  uintptr_t hi, int has_hi, uintptr_t *max,
                                  struct BT_(check) * c) {
  /* Only the root and the rightmost node of a level (no HI) may be less
   * than half full. */
  if (nd->n > BT_CAP || (nd != root && has_hi && nd->n < BT_MIN) ||
      nd->n == 0 || depth >= height)
    return -1;
  for (unsigned i = 0; i < nd->n; i++) {
    if (nd->key[i] < lo || (has_hi && nd->key[i] >= hi))
      return -1;
    if (i && nd->key[i] <= nd->key[i - 1])
      return -1;
  }
  *max = 0;
  if (nd->leaf) {
    if (depth != height - 1 || nd->u.lf.prev != c->last_leaf ||
        (c->last_leaf && c->last_leaf->u.lf.next != nd))
      return -1;
    c->last_leaf = nd;
    c->count += nd->n;
#if BT_MAXES
    *max = BT_(node_max)(nd);
#endif
    return 0;
  }
  for (unsigned i = 0; i <= nd->n; i++) {
    uintptr_t clo = i ? nd->key[i - 1] : lo;
    uintptr_t chi = i < nd->n ? nd->key[i] : hi;
    int chas = i < nd->n ? 1 : has_hi;
    uintptr_t m;
    if (BT_(check_node)(nd->u.in.child[i], depth + 1, height, root, clo, chi,
                        chas, &m, c))
      return -1;
#if BT_MAXES
    if (m != nd->u.in.max[i])
      return -1;
    *max = m > *max ? m : *max;
#endif
  }
  return 0;
}

/* Check the tree's invariants (order, fill, equal depth, links, count,
 * maxima, cursor, tail): the height, or -1 when broken.  For tests. */
BT_COLD static int BT_(check)(const bt_tree *t) {
  if (!t->root)
    return t->count == 0 && t->height == 0 && !t->tail ? 0 : -1;
  struct BT_(check) c = {NULL, 0};
  uintptr_t m;
  if (BT_(check_node)(t->root, 0, t->height, t->root, 0, 0, 0, &m, &c))
    return -1;
  if (c.last_leaf->u.lf.next || c.count != t->count)
    return -1;
  if (t->tail && t->tail != c.last_leaf)
    return -1;
  if (t->walked) {
    /* The cursor is a path from the root down to a leaf. */
    if (t->walked != t->height || t->path[0] != t->root)
      return -1;
    for (int l = 0; l + 1 < t->walked; l++)
      if (t->path[l]->leaf || t->idx[l] > t->path[l]->n ||
          t->path[l]->u.in.child[t->idx[l]] != t->path[l + 1])
        return -1;
    if (!t->path[t->walked - 1]->leaf)
      return -1;
  }
  return t->height;
}

#undef bt_node
#undef bt_tree
#undef BT_MIN
#undef BT_STEP0
#undef BT_
#undef BT_CAT
#undef BT_CAT2
#undef BT_TREE
#undef BT_NODE
#undef BT_PREFIX
#undef BT_CAP
#undef BT_VALS
#undef BT_MAXES
