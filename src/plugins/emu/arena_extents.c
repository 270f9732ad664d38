/* The B+ tree of free extents (see arena_extents.h).  Every change walks
 * down once, remembers the path, and repairs it bottom-up: a full node
 * splits in two, a node below half full borrows from a neighbour or
 * merges with it, and the maxima of the children on the path are brought
 * up to date.  Every node but the root is at least half full. */
#include "config.h"
#include "arena_extents.h"

#include <string.h>

#define CAP XT_CAP
#define MIN (CAP / 2)
#define MAX_HEIGHT 32 /* 7^31 extents: never reached */

typedef struct xt_node node;

static node *node_new(struct xtree *t, int leaf) {
  node *nd = block_pool_get(&t->nodes, sizeof(node));
  if (!nd)
    return NULL;
  nd->n = 0;
  nd->leaf = (uint32_t)leaf;
  if (leaf)
    nd->u.lf.prev = nd->u.lf.next = NULL;
  return nd;
}

static void node_put(struct xtree *t, node *nd) {
  block_pool_put(&t->nodes, nd, sizeof(node));
}

/* The largest length in ND's subtree. */
static size_t node_max(const node *nd) {
  size_t m = 0;
  if (nd->leaf) {
    for (unsigned i = 0; i < nd->n; i++)
      if (nd->u.lf.len[i] > m)
        m = nd->u.lf.len[i];
  } else {
    for (unsigned i = 0; i <= nd->n; i++)
      if (nd->u.in.max[i] > m)
        m = nd->u.in.max[i];
  }
  return m;
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

/* The path from the root to K's leaf: NODES[0] is the root, IDX[l] the
 * child of NODES[l] taken (unused for the leaf). */
struct path {
  node *nodes[MAX_HEIGHT];
  unsigned idx[MAX_HEIGHT];
};

static void walk_down(const struct xtree *t, uintptr_t k, struct path *p) {
  node *nd = t->root;
  for (int l = 0; l < t->height; l++) {
    p->nodes[l] = nd;
    if (!nd->leaf) {
      p->idx[l] = count_le(nd, k);
      nd = nd->u.in.child[p->idx[l]];
    }
  }
}

void xt_around(const struct xtree *t, uintptr_t k, struct xt_ext *below,
               struct xt_ext *above) {
  below->len = above->len = 0;
  const node *lf = t->root;
  while (lf && !lf->leaf)
    lf = lf->u.in.child[count_le(lf, k)];
  if (!lf)
    return;
  unsigned j = count_le(lf, k);
  const node *b = lf;
  unsigned bi = j;
  if (!j) {
    b = lf->u.lf.prev;
    bi = b ? b->n : 0;
  }
  if (b && bi) {
    below->key = b->key[bi - 1];
    below->len = b->u.lf.len[bi - 1];
    below->tag = b->u.lf.tag[bi - 1];
  }
  const node *a = j < lf->n ? lf : lf->u.lf.next;
  unsigned ai = j < lf->n ? j : 0;
  if (a) {
    above->key = a->key[ai];
    above->len = a->u.lf.len[ai];
    above->tag = a->u.lf.tag[ai];
  }
}

int xt_first_fit(const struct xtree *t, size_t len, struct xt_ext *out) {
  const node *nd = t->root;
  if (!nd)
    return -1;
  while (!nd->leaf) {
    unsigned c = 0;
    while (c <= nd->n && nd->u.in.max[c] < len)
      c++;
    if (c > nd->n)
      return -1;
    nd = nd->u.in.child[c];
  }
  for (unsigned i = 0; i < nd->n; i++)
    if (nd->u.lf.len[i] >= len) {
      out->key = nd->key[i];
      out->len = nd->u.lf.len[i];
      out->tag = nd->u.lf.tag[i];
      return 0;
    }
  return -1;
}

/* ------------------------------------------------------------ insert */

/* Put KEY/LEN/TAG at position POS of leaf LF (not full). */
static void leaf_put(node *lf, unsigned pos, uintptr_t key, size_t len,
                     unsigned long tag) {
  unsigned m = lf->n - pos;
  memmove(&lf->key[pos + 1], &lf->key[pos], m * sizeof lf->key[0]);
  memmove(&lf->u.lf.len[pos + 1], &lf->u.lf.len[pos], m * sizeof(size_t));
  memmove(&lf->u.lf.tag[pos + 1], &lf->u.lf.tag[pos], m * sizeof tag);
  lf->key[pos] = key;
  lf->u.lf.len[pos] = len;
  lf->u.lf.tag[pos] = tag;
  lf->n++;
}

/* Put separator KEY and child R (with maximum RMAX) right of child C of
 * inner node ND (not full). */
static void inner_put(node *nd, unsigned c, uintptr_t key, node *r,
                      size_t rmax) {
  unsigned m = nd->n - c;
  memmove(&nd->key[c + 1], &nd->key[c], m * sizeof nd->key[0]);
  memmove(&nd->u.in.child[c + 2], &nd->u.in.child[c + 1], m * sizeof r);
  memmove(&nd->u.in.max[c + 2], &nd->u.in.max[c + 1], m * sizeof(size_t));
  nd->key[c] = key;
  nd->u.in.child[c + 1] = r;
  nd->u.in.max[c + 1] = rmax;
  nd->n++;
}

/* Full leaf LF: add KEY/LEN/TAG at POS and move the upper half to the
 * empty leaf R.  Returns the separator (R's first key). */
static uintptr_t leaf_split(node *lf, node *r, unsigned pos, uintptr_t key,
                            size_t len, unsigned long tag) {
  uintptr_t keys[CAP + 1];
  size_t lens[CAP + 1];
  unsigned long tags[CAP + 1];
  memcpy(keys, lf->key, pos * sizeof keys[0]);
  memcpy(lens, lf->u.lf.len, pos * sizeof lens[0]);
  memcpy(tags, lf->u.lf.tag, pos * sizeof tags[0]);
  keys[pos] = key;
  lens[pos] = len;
  tags[pos] = tag;
  memcpy(keys + pos + 1, lf->key + pos, (CAP - pos) * sizeof keys[0]);
  memcpy(lens + pos + 1, lf->u.lf.len + pos, (CAP - pos) * sizeof lens[0]);
  memcpy(tags + pos + 1, lf->u.lf.tag + pos, (CAP - pos) * sizeof tags[0]);
  unsigned half = (CAP + 1) / 2;
  lf->n = half;
  memcpy(lf->key, keys, half * sizeof keys[0]);
  memcpy(lf->u.lf.len, lens, half * sizeof lens[0]);
  memcpy(lf->u.lf.tag, tags, half * sizeof tags[0]);
  r->n = CAP + 1 - half;
  memcpy(r->key, keys + half, r->n * sizeof keys[0]);
  memcpy(r->u.lf.len, lens + half, r->n * sizeof lens[0]);
  memcpy(r->u.lf.tag, tags + half, r->n * sizeof tags[0]);
  r->u.lf.next = lf->u.lf.next;
  r->u.lf.prev = lf;
  if (lf->u.lf.next)
    lf->u.lf.next->u.lf.prev = r;
  lf->u.lf.next = r;
  return r->key[0];
}

/* Full inner node ND: add separator KEY and child CR (maximum CMAX) right
 * of child C, then move the upper half to the empty inner node R.
 * Returns the key that goes up. */
static uintptr_t inner_split(node *nd, node *r, unsigned c, uintptr_t key,
                             node *cr, size_t cmax) {
  uintptr_t keys[CAP + 1];
  node *kids[CAP + 2];
  size_t maxs[CAP + 2];
  memcpy(keys, nd->key, c * sizeof keys[0]);
  keys[c] = key;
  memcpy(keys + c + 1, nd->key + c, (CAP - c) * sizeof keys[0]);
  memcpy(kids, nd->u.in.child, (c + 1) * sizeof kids[0]);
  memcpy(maxs, nd->u.in.max, (c + 1) * sizeof maxs[0]);
  kids[c + 1] = cr;
  maxs[c + 1] = cmax;
  memcpy(kids + c + 2, nd->u.in.child + c + 1, (CAP - c) * sizeof kids[0]);
  memcpy(maxs + c + 2, nd->u.in.max + c + 1, (CAP - c) * sizeof maxs[0]);
  unsigned half = (CAP + 1) / 2; /* keys kept; keys[half] goes up */
  nd->n = half;
  memcpy(nd->key, keys, half * sizeof keys[0]);
  memcpy(nd->u.in.child, kids, (half + 1) * sizeof kids[0]);
  memcpy(nd->u.in.max, maxs, (half + 1) * sizeof maxs[0]);
  r->n = CAP - half;
  memcpy(r->key, keys + half + 1, r->n * sizeof keys[0]);
  memcpy(r->u.in.child, kids + half + 1, (r->n + 1) * sizeof kids[0]);
  memcpy(r->u.in.max, maxs + half + 1, (r->n + 1) * sizeof maxs[0]);
  return keys[half];
}

int xt_insert(struct xtree *t, uintptr_t key, size_t len, unsigned long tag) {
  if (!t->root) {
    node *lf = node_new(t, 1);
    if (!lf)
      return -1;
    lf->n = 1;
    lf->key[0] = key;
    lf->u.lf.len[0] = len;
    lf->u.lf.tag[0] = tag;
    t->root = lf;
    t->height = 1;
    t->count = 1;
    return 0;
  }
  struct path p;
  walk_down(t, key, &p);
  /* Every full node on the way up splits, and a full root makes a new
   * root: allocate them all first so that a failure changes nothing. */
  node *spare[MAX_HEIGHT + 1];
  int need = 0, l = t->height - 1;
  while (l >= 0 && p.nodes[l]->n == CAP) {
    l--;
    need++;
  }
  if (l < 0)
    need++;
  for (int i = 0; i < need; i++) {
    spare[i] = node_new(t, i == 0 && p.nodes[t->height - 1]->n == CAP);
    if (!spare[i]) {
      while (i-- > 0)
        node_put(t, spare[i]);
      return -1;
    }
  }
  t->count++;
  int used = 0;
  l = t->height - 1;
  node *lf = p.nodes[l];
  unsigned pos = count_le(lf, key);
  if (lf->n < CAP) {
    leaf_put(lf, pos, key, len, tag);
  } else {
    /* Split upwards while nodes are full: SEP and R go into the parent. */
    node *r = spare[used++];
    uintptr_t sep = leaf_split(lf, r, pos, key, len, tag);
    node *left = lf;
    for (l--; l >= 0; l--) {
      node *par = p.nodes[l];
      unsigned c = p.idx[l];
      par->u.in.max[c] = node_max(left);
      size_t rmax = node_max(r);
      if (par->n < CAP) {
        inner_put(par, c, sep, r, rmax);
        break;
      }
      node *pr = spare[used++];
      pr->leaf = 0;
      sep = inner_split(par, pr, c, sep, r, rmax);
      left = par;
      r = pr;
    }
    if (l < 0) {
      node *root = spare[used];
      root->leaf = 0;
      root->n = 1;
      root->key[0] = sep;
      root->u.in.child[0] = left;
      root->u.in.child[1] = r;
      root->u.in.max[0] = node_max(left);
      root->u.in.max[1] = node_max(r);
      t->root = root;
      t->height++;
      return 0;
    }
  }
  /* Above the highest change the subtrees only gained LEN. */
  for (l--; l >= 0; l--) {
    size_t *m = &p.nodes[l]->u.in.max[p.idx[l]];
    if (*m < len)
      *m = len;
  }
  return 0;
}

/* ------------------------------------------------------------ remove */

/* Remove key I of leaf LF with its length and tag. */
static void leaf_take(node *lf, unsigned i) {
  unsigned m = lf->n - i - 1;
  memmove(&lf->key[i], &lf->key[i + 1], m * sizeof lf->key[0]);
  memmove(&lf->u.lf.len[i], &lf->u.lf.len[i + 1], m * sizeof(size_t));
  memmove(&lf->u.lf.tag[i], &lf->u.lf.tag[i + 1], m * sizeof(unsigned long));
  lf->n--;
}

/* Remove key I of inner node ND with the child right of it. */
static void inner_take(node *nd, unsigned i) {
  unsigned m = nd->n - i - 1;
  memmove(&nd->key[i], &nd->key[i + 1], m * sizeof nd->key[0]);
  memmove(&nd->u.in.child[i + 1], &nd->u.in.child[i + 2], m * sizeof(node *));
  memmove(&nd->u.in.max[i + 1], &nd->u.in.max[i + 2], m * sizeof(size_t));
  nd->n--;
}

/* Child CI of PAR has fewer than MIN keys: borrow one from a neighbour,
 * or merge with one (PAR then loses a key).  The maxima in PAR of the
 * children involved are brought up to date. */
static void repair(struct xtree *t, node *par, unsigned ci) {
  node *nd = par->u.in.child[ci];
  node *left = ci > 0 ? par->u.in.child[ci - 1] : NULL;
  node *right = ci < par->n ? par->u.in.child[ci + 1] : NULL;
  if (left && left->n > MIN) {
    if (nd->leaf) {
      leaf_put(nd, 0, left->key[left->n - 1], left->u.lf.len[left->n - 1],
               left->u.lf.tag[left->n - 1]);
      left->n--;
      par->key[ci - 1] = nd->key[0];
    } else {
      inner_put(nd, 0, 0, NULL, 0); /* make room at the front */
      /* inner_put put the new child at 1: move child 0 there instead. */
      nd->u.in.child[1] = nd->u.in.child[0];
      nd->u.in.max[1] = nd->u.in.max[0];
      nd->key[0] = par->key[ci - 1];
      nd->u.in.child[0] = left->u.in.child[left->n];
      nd->u.in.max[0] = left->u.in.max[left->n];
      par->key[ci - 1] = left->key[left->n - 1];
      left->n--;
    }
    par->u.in.max[ci - 1] = node_max(left);
    par->u.in.max[ci] = node_max(nd);
    return;
  }
  if (right && right->n > MIN) {
    if (nd->leaf) {
      nd->key[nd->n] = right->key[0];
      nd->u.lf.len[nd->n] = right->u.lf.len[0];
      nd->u.lf.tag[nd->n] = right->u.lf.tag[0];
      nd->n++;
      leaf_take(right, 0);
      par->key[ci] = right->key[0];
    } else {
      nd->key[nd->n] = par->key[ci];
      nd->u.in.child[nd->n + 1] = right->u.in.child[0];
      nd->u.in.max[nd->n + 1] = right->u.in.max[0];
      nd->n++;
      par->key[ci] = right->key[0];
      unsigned m = right->n;
      memmove(&right->key[0], &right->key[1], (m - 1) * sizeof right->key[0]);
      memmove(&right->u.in.child[0], &right->u.in.child[1], m * sizeof(node *));
      memmove(&right->u.in.max[0], &right->u.in.max[1], m * sizeof(size_t));
      right->n--;
    }
    par->u.in.max[ci] = node_max(nd);
    par->u.in.max[ci + 1] = node_max(right);
    return;
  }
  /* Merge the pair (L, R) separated by PAR's key S into L. */
  unsigned s = left ? ci - 1 : ci;
  node *l = left ? left : nd, *r = left ? nd : right;
  if (l->leaf) {
    memcpy(&l->key[l->n], r->key, r->n * sizeof r->key[0]);
    memcpy(&l->u.lf.len[l->n], r->u.lf.len, r->n * sizeof(size_t));
    memcpy(&l->u.lf.tag[l->n], r->u.lf.tag, r->n * sizeof(unsigned long));
    l->n += r->n;
    l->u.lf.next = r->u.lf.next;
    if (r->u.lf.next)
      r->u.lf.next->u.lf.prev = l;
  } else {
    l->key[l->n] = par->key[s];
    memcpy(&l->key[l->n + 1], r->key, r->n * sizeof r->key[0]);
    memcpy(&l->u.in.child[l->n + 1], r->u.in.child,
           (r->n + 1) * sizeof(node *));
    memcpy(&l->u.in.max[l->n + 1], r->u.in.max, (r->n + 1) * sizeof(size_t));
    l->n += 1 + r->n;
  }
  node_put(t, r);
  inner_take(par, s);
  par->u.in.max[s] = node_max(l);
}

/* Walk down to KEY (path in *P); 1 with its leaf and slot in *LF, *I if
 * KEY is there, else 0. */
static int find_exact(struct xtree *t, uintptr_t key, struct path *p,
                      node **lf, unsigned *i) {
  walk_down(t, key, p);
  *lf = p->nodes[t->height - 1];
  unsigned n = count_le(*lf, key);
  if (!n || (*lf)->key[n - 1] != key)
    return 0;
  *i = n - 1;
  return 1;
}

void xt_remove(struct xtree *t, uintptr_t key) {
  if (!t->root)
    return;
  struct path p;
  int l = t->height - 1;
  node *lf;
  unsigned i;
  if (!find_exact(t, key, &p, &lf, &i))
    return; /* not present */
  leaf_take(lf, i);
  t->count--;
  for (; l > 0; l--) {
    node *par = p.nodes[l - 1];
    unsigned c = p.idx[l - 1];
    if (p.nodes[l]->n < MIN)
      repair(t, par, c);
    else
      par->u.in.max[c] = node_max(p.nodes[l]);
  }
  node *root = t->root;
  if (root->n == 0) {
    t->root = root->leaf ? NULL : root->u.in.child[0];
    t->height--;
    node_put(t, root);
  }
}

void xt_set(struct xtree *t, uintptr_t key, uintptr_t nkey, size_t nlen,
            unsigned long ntag) {
  struct path p;
  int l = t->height - 1;
  node *lf;
  unsigned i;
  if (!find_exact(t, key, &p, &lf, &i))
    return; /* not present */
  size_t old = lf->u.lf.len[i];
  lf->key[i] = nkey;
  lf->u.lf.len[i] = nlen;
  lf->u.lf.tag[i] = ntag;
  for (l--; l >= 0; l--) {
    node *nd = p.nodes[l];
    unsigned c = p.idx[l];
    /* Keep NKEY inside child C's key range: the keys left of it are all
     * below NKEY and those right of it above, so both moves are safe. */
    if (c > 0 && nd->key[c - 1] > nkey)
      nd->key[c - 1] = nkey;
    if (c < nd->n && nd->key[c] <= nkey)
      nd->key[c] = nkey + 1;
    size_t *m = &nd->u.in.max[c];
    if (nlen >= old)
      *m = *m > nlen ? *m : nlen;
    else if (*m == old)
      *m = node_max(p.nodes[l + 1]);
  }
}

/* ------------------------------------------------------------- misc */

void xt_foreach(const struct xtree *t,
                void (*fn)(uintptr_t key, size_t len, void *arg), void *arg) {
  const node *lf = t->root;
  while (lf && !lf->leaf)
    lf = lf->u.in.child[0];
  for (; lf; lf = lf->u.lf.next)
    for (unsigned i = 0; i < lf->n; i++)
      fn(lf->key[i], lf->u.lf.len[i], arg);
}

void xt_clear(struct xtree *t) {
  block_pool_release(&t->nodes, sizeof(node));
  t->root = NULL;
  t->count = 0;
  t->height = 0;
}

struct check {
  const node *last_leaf;
  size_t count;
};

/* Keys of ND's subtree lie in [LO, HI) (HAS_HI: HI applies); its largest
 * length into *MAX. */
static int check_node(const node *nd, int depth, int height, const node *root,
                      uintptr_t lo, uintptr_t hi, int has_hi, size_t *max,
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
    if (depth != height - 1 || nd->u.lf.prev != c->last_leaf ||
        (c->last_leaf && c->last_leaf->u.lf.next != nd))
      return -1;
    for (unsigned i = 0; i < nd->n; i++)
      if (!nd->u.lf.len[i])
        return -1;
    c->last_leaf = nd;
    c->count += nd->n;
    *max = node_max(nd);
    return 0;
  }
  *max = 0;
  for (unsigned i = 0; i <= nd->n; i++) {
    uintptr_t clo = i ? nd->key[i - 1] : lo;
    uintptr_t chi = i < nd->n ? nd->key[i] : hi;
    int chas = i < nd->n ? 1 : has_hi;
    size_t m;
    if (check_node(nd->u.in.child[i], depth + 1, height, root, clo, chi, chas,
                   &m, c) ||
        m != nd->u.in.max[i])
      return -1;
    if (m > *max)
      *max = m;
  }
  return 0;
}

int xt_check(const struct xtree *t) {
  if (!t->root)
    return t->count == 0 && t->height == 0 ? 0 : -1;
  struct check c = {NULL, 0};
  size_t m;
  if (check_node(t->root, 0, t->height, t->root, 0, 0, 0, &m, &c))
    return -1;
  if (c.last_leaf->u.lf.next || c.count != t->count)
    return -1;
  return t->height;
}
