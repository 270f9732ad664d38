/* The tree of free extents (see arena_extents.h): the B+ tree of
 * src/common/btree_impl.h with two words per key, the length (whose
 * maxima the inner nodes keep) and the tag. */
#include "config.h"
#include "arena_extents.h"

#define BT_TREE xtree
#define BT_NODE xt_node
#define BT_PREFIX xtb
#define BT_CAP XT_CAP
#define BT_VALS 2
#define BT_MAXES 1
#include "btree_impl.h"

enum { LEN, TAG };

/* The extent at P into *E (LEN 0 when P is none). */
static inline void ext_at(struct xtb_pos p, struct xt_ext *e) {
  if (!p.lf) {
    e->len = 0;
    return;
  }
  e->key = p.lf->key[p.i];
  e->len = p.lf->u.lf.val[LEN][p.i];
  e->tag = p.lf->u.lf.val[TAG][p.i];
}

int xt_insert(struct xtree *t, uintptr_t key, size_t len, unsigned long tag) {
  uintptr_t v[2] = {len, tag};
  return xtb_insert(t, key, v);
}

void xt_remove(struct xtree *t, uintptr_t key) { xtb_remove(t, key); }

void xt_set(struct xtree *t, uintptr_t key, uintptr_t nkey, size_t nlen,
            unsigned long ntag) {
  uintptr_t v[2] = {nlen, ntag};
  xtb_set(t, key, nkey, v);
}

void xt_around(struct xtree *t, uintptr_t k, struct xt_ext *below,
               struct xt_ext *above) {
  struct xtb_pos b, a;
  xtb_around(t, k, &b, &a);
  ext_at(b, below);
  ext_at(a, above);
}

int xt_first_fit(struct xtree *t, size_t len, struct xt_ext *out) {
  struct xtb_pos p = xtb_first_fit(t, len);
  if (!p.lf)
    return -1;
  ext_at(p, out);
  return 0;
}

void xt_foreach(const struct xtree *t,
                void (*fn)(uintptr_t key, size_t len, void *arg), void *arg) {
  for (const struct xt_node *lf = xtb_first_leaf(t); lf; lf = lf->u.lf.next)
    for (unsigned i = 0; i < lf->n; i++)
      fn(lf->key[i], lf->u.lf.val[LEN][i], arg);
}

void xt_clear(struct xtree *t) { xtb_clear(t); }

int xt_check(const struct xtree *t) {
  int h = xtb_check(t);
  if (h < 0)
    return -1;
  for (const struct xt_node *lf = xtb_first_leaf(t); lf; lf = lf->u.lf.next)
    for (unsigned i = 0; i < lf->n; i++)
      if (!lf->u.lf.val[LEN][i])
        return -1;
  return h;
}

_Static_assert(sizeof(struct xt_node) <= 384,
               "a free-extent node is six cache lines (arena_extents.h)");
