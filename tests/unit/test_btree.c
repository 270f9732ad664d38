/* Unit tests of the generated B+ trees (src/common/btree_impl.h), with
 * nodes small enough that a few keys reach every case: two instances, one
 * with first-word maxima and two words a key (as the emu arena's free
 * extents), one with one word a key and appends at the right end (as the
 * mapping index).  Every operation is checked against a plain sorted
 * array, and the tree's invariants (order, fill, depth, links, maxima,
 * cursor, tail) after each change: insertions and removals in ascending,
 * descending and shuffled orders, splits and merges at node boundaries,
 * neighbours at both ends, key moves through the cursor, many keys; and
 * a third instance with the real trees' 14 keys a node, whose search in a
 * node takes more steps than a node of 3 or 4 keys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "btree.h"

/* M: maxima, 4 keys a node, two words a key. */
BTREE_TYPES(mtree, mnode, 4, 2, 1);
#define BT_TREE mtree
#define BT_NODE mnode
#define BT_PREFIX mt
#define BT_CAP 4
#define BT_VALS 2
#define BT_MAXES 1
#include "btree_impl.h"

/* P: plain, 3 keys a node (the smallest), one word a key. */
BTREE_TYPES(ptree, pnode, 3, 1, 0);
#define BT_TREE ptree
#define BT_NODE pnode
#define BT_PREFIX pt
#define BT_CAP 3
#define BT_VALS 1
#define BT_MAXES 0
#include "btree_impl.h"

/* W: 14 keys a node, as the arena's free extents and the mapping index
 * (arena_extents.h, map_index.h), one word a key. */
BTREE_TYPES(wtree, wnode, 14, 1, 0);
#define BT_TREE wtree
#define BT_NODE wnode
#define BT_PREFIX wt
#define BT_CAP 14
#define BT_VALS 1
#define BT_MAXES 0
#include "btree_impl.h"

/* The reference: keys sorted, with their two words. */
struct model {
  uintptr_t *k, *v0, *v1;
  size_t n;
};

static struct model model_new(size_t cap) {
  struct model m = {calloc(cap, sizeof(uintptr_t)),
                    calloc(cap, sizeof(uintptr_t)),
                    calloc(cap, sizeof(uintptr_t)), 0};
  assert_non_null(m.k);
  assert_non_null(m.v0);
  assert_non_null(m.v1);
  return m;
}

static void model_free(struct model *m) {
  free(m->k);
  free(m->v0);
  free(m->v1);
}

/* The first index with key >= K. */
static size_t model_pos(const struct model *m, uintptr_t k) {
  size_t lo = 0, hi = m->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (m->k[mid] < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int model_has(const struct model *m, uintptr_t k) {
  size_t i = model_pos(m, k);
  return i < m->n && m->k[i] == k;
}

static void model_insert(struct model *m, uintptr_t k, uintptr_t v0,
                         uintptr_t v1) {
  size_t i = model_pos(m, k), r = m->n - i;
  memmove(&m->k[i + 1], &m->k[i], r * sizeof m->k[0]);
  memmove(&m->v0[i + 1], &m->v0[i], r * sizeof m->k[0]);
  memmove(&m->v1[i + 1], &m->v1[i], r * sizeof m->k[0]);
  m->k[i] = k, m->v0[i] = v0, m->v1[i] = v1;
  m->n++;
}

static void model_remove(struct model *m, uintptr_t k) {
  size_t i = model_pos(m, k), r = m->n - i - 1;
  memmove(&m->k[i], &m->k[i + 1], r * sizeof m->k[0]);
  memmove(&m->v0[i], &m->v0[i + 1], r * sizeof m->k[0]);
  memmove(&m->v1[i], &m->v1[i + 1], r * sizeof m->k[0]);
  m->n--;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

/* ------------------------------------------------- M against the model */

/* The keys and words of M's leaves, in order, equal the model's. */
static void m_same(const struct mtree *t, const struct model *m) {
  assert_true(mt_check(t) >= 0);
  assert_int_equal(t->count, m->n);
  size_t i = 0;
  for (const struct mnode *lf = mt_first_leaf(t); lf; lf = lf->u.lf.next)
    for (unsigned j = 0; j < lf->n; j++, i++) {
      assert_true(i < m->n);
      assert_int_equal(lf->key[j], m->k[i]);
      assert_int_equal(lf->u.lf.val[0][j], m->v0[i]);
      assert_int_equal(lf->u.lf.val[1][j], m->v1[i]);
    }
  assert_int_equal(i, m->n);
}

/* The model's index of a position, or M->n for none. */
static size_t m_index(const struct model *m, struct mt_pos p) {
  if (!p.lf)
    return m->n;
  size_t i = model_pos(m, p.lf->key[p.i]);
  assert_true(i < m->n && m->k[i] == p.lf->key[p.i]);
  return i;
}

/* Every lookup of K answers as the model does. */
static void m_probe(struct mtree *t, const struct model *m, uintptr_t k) {
  size_t ge = model_pos(m, k);                        /* least >= K */
  size_t gt = ge + (ge < m->n && m->k[ge] == k);      /* least > K */
  size_t le = gt ? gt - 1 : m->n;                     /* greatest <= K */
  assert_int_equal(m_index(m, mt_floor(t, k)), le);
  assert_int_equal(m_index(m, mt_next(t, k, 1)), gt);
  assert_int_equal(m_index(m, mt_next(t, k, 0)), ge);
  struct mt_pos b, a;
  mt_around(t, k, &b, &a);
  assert_int_equal(m_index(m, b), le);
  assert_int_equal(m_index(m, a), gt);
  size_t ff = 0; /* first fit of K % 64 */
  while (ff < m->n && m->v0[ff] < k % 64)
    ff++;
  assert_int_equal(m_index(m, mt_first_fit(t, k % 64)), ff);
  assert_true(mt_check(t) >= 0); /* the lookups left a sound cursor */
}

static void m_insert(struct mtree *t, struct model *m, uintptr_t k) {
  uintptr_t v[2] = {1 + k % 61, k * 3};
  assert_int_equal(mt_insert(t, k, v), 0);
  model_insert(m, k, v[0], v[1]);
}

/* Insert KEYS[0..N-1], checking the tree after each, then remove them in
 * the order of GONE[0..N-1], checking again. */
static void m_in_out(const uintptr_t *keys, const uintptr_t *gone, size_t n) {
  struct mtree t = {0};
  struct model m = model_new(n);
  for (size_t i = 0; i < n; i++) {
    m_insert(&t, &m, keys[i]);
    m_same(&t, &m);
  }
  for (size_t i = 0; i < n; i++) {
    m_probe(&t, &m, gone[i]);
    m_probe(&t, &m, gone[i] + 1);
    mt_remove(&t, gone[i]);
    model_remove(&m, gone[i]);
    m_same(&t, &m);
  }
  assert_null(t.root);
  assert_int_equal(t.height, 0);
  mt_clear(&t);
  model_free(&m);
}

static void shuffle(uintptr_t *v, size_t n) {
  for (size_t i = n; i > 1; i--) {
    size_t j = next_rand() % i;
    uintptr_t x = v[i - 1];
    v[i - 1] = v[j];
    v[j] = x;
  }
}

static void test_orders(void **state) {
  (void)state;
  enum { N = 200 };
  uintptr_t up[N], down[N], mixed[N];
  for (size_t i = 0; i < N; i++) {
    up[i] = 16 * (i + 1);
    down[i] = 16 * (N - i);
    mixed[i] = up[i];
  }
  shuffle(mixed, N);
  const uintptr_t *orders[] = {up, down, mixed};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++)
      m_in_out(orders[a], orders[b], N);
}

/* A leaf of 4 keys splits at the fifth; below half full (2) it borrows or
 * merges; an inner node splits and merges at the same counts. */
static void test_boundaries(void **state) {
  (void)state;
  struct mtree t = {0};
  struct model m = model_new(64);
  for (uintptr_t k = 1; k <= 4; k++)
    m_insert(&t, &m, 10 * k);
  assert_int_equal(mt_check(&t), 1);
  m_insert(&t, &m, 25); /* a fifth key inside: two leaves under a root */
  m_same(&t, &m);
  assert_int_equal(t.height, 2);
  assert_int_equal(t.root->n, 1);
  assert_int_equal(t.root->u.in.child[0]->n, 2);
  assert_int_equal(t.root->u.in.child[1]->n, 3);
  assert_int_equal(t.root->u.in.max[0], m.v0[0] > m.v0[1] ? m.v0[0] : m.v0[1]);
  mt_remove(&t, 10); /* the left leaf borrows from the right */
  model_remove(&m, 10);
  m_same(&t, &m);
  assert_int_equal(t.height, 2);
  assert_int_equal(t.root->u.in.child[0]->n, 2);
  assert_int_equal(t.root->u.in.child[1]->n, 2);
  mt_remove(&t, 40); /* the right leaf merges: one leaf again */
  model_remove(&m, 40);
  m_same(&t, &m);
  assert_int_equal(t.height, 1);
  m_insert(&t, &m, 60); /* full */
  m_insert(&t, &m, 80); /* above all: the full leaf stays full */
  m_same(&t, &m);
  assert_int_equal(t.height, 2);
  assert_int_equal(t.root->u.in.child[0]->n, 4);
  assert_int_equal(t.root->u.in.child[1]->n, 1);
  mt_remove(&t, 80); /* the rightmost leaf, empty, borrows */
  model_remove(&m, 80);
  m_same(&t, &m);
  assert_int_equal(t.height, 2);
  assert_int_equal(t.root->u.in.child[0]->n, 3);
  assert_int_equal(t.root->u.in.child[1]->n, 1);
  /* From empty, ascending keys until the root (inner) splits: height 3. */
  mt_clear(&t);
  m.n = 0;
  uintptr_t k = 100;
  while (t.height < 3) {
    m_insert(&t, &m, k += 10);
    m_same(&t, &m);
  }
  /* Ascending insertions left every leaf but the last full, and every
   * inner node but the right edge's with all but one of its keys. */
  for (const struct mnode *lf = mt_first_leaf(&t); lf->u.lf.next;
       lf = lf->u.lf.next)
    assert_int_equal(lf->n, 4);
  assert_int_equal(t.root->u.in.child[0]->n, 3);
  /* Down from the right until it is 2 again: inner merges. */
  while (t.height == 3) {
    uintptr_t last = m.k[m.n - 1];
    mt_remove(&t, last);
    model_remove(&m, last);
    m_same(&t, &m);
  }
  assert_int_equal(t.height, 2);
  mt_clear(&t);
  assert_int_equal(mt_check(&t), 0);
  model_free(&m);
}

/* Neighbours of keys below the first and above the last, and of keys
 * between leaves. */
static void test_ends(void **state) {
  (void)state;
  struct mtree t = {0};
  struct model m = model_new(64);
  for (uintptr_t k = 0; k <= 20; k++)
    m_probe(&t, &m, k); /* empty */
  for (uintptr_t k = 1; k <= 40; k++) {
    m_insert(&t, &m, 100 * k);
    for (uintptr_t q = 0; q <= 100 * k + 150; q += 50)
      m_probe(&t, &m, q);
  }
  struct mt_pos b, a;
  mt_around(&t, 0, &b, &a);
  assert_null(b.lf);
  assert_int_equal(a.lf->key[a.i], 100);
  mt_around(&t, 4000, &b, &a);
  assert_int_equal(b.lf->key[b.i], 4000);
  assert_null(a.lf);
  assert_null(mt_next(&t, 4000, 1).lf);
  assert_null(mt_floor(&t, 99).lf);
  assert_null(mt_first_fit(&t, 62).lf); /* every length is 1..61 */
  mt_clear(&t);
  model_free(&m);
}

/* Keys moved and words changed in place, through the cursor of the
 * search that found them (as the arena does after xt_around and
 * xt_first_fit) and without it. */
static void test_set(void **state) {
  (void)state;
  enum { N = 300 };
  struct mtree t = {0};
  struct model m = model_new(N);
  for (uintptr_t i = 0; i < N; i++)
    m_insert(&t, &m, 1000 * (i + 1));
  for (int r = 0; r < 3000; r++) {
    size_t i = next_rand() % m.n;
    uintptr_t lo = i ? m.k[i - 1] + 1 : 0;
    uintptr_t hi = i + 1 < m.n ? m.k[i + 1] - 1 : m.k[i] + 1000;
    uintptr_t nk = lo + next_rand() % (hi - lo + 1);
    uintptr_t v[2] = {next_rand() % 100 + 1, (uintptr_t)r};
    switch (r % 3) {
    case 0: /* found by around */
      m_probe(&t, &m, m.k[i]);
      break;
    case 1: { /* found by first fit */
      struct mt_pos p = mt_first_fit(&t, next_rand() % 100 + 1);
      if (p.lf)
        i = m_index(&m, p);
      lo = i ? m.k[i - 1] + 1 : 0;
      hi = i + 1 < m.n ? m.k[i + 1] - 1 : m.k[i] + 1000;
      nk = lo + next_rand() % (hi - lo + 1);
      break;
    }
    default: /* the cursor elsewhere */
      mt_floor(&t, next_rand() % (1000 * N));
    }
    mt_set(&t, m.k[i], nk, v);
    m.k[i] = nk, m.v0[i] = v[0], m.v1[i] = v[1];
    m_same(&t, &m);
  }
  mt_clear(&t);
  model_free(&m);
}

/* Many keys in random order, mixed insertions and removals. */
static void test_many(void **state) {
  (void)state;
  enum { N = 60000, SPACE = 1 << 20 };
  struct mtree t = {0};
  struct model m = model_new(N);
  for (int r = 0; r < 4 * N; r++) {
    uintptr_t k = next_rand() % SPACE;
    if (model_has(&m, k)) {
      if (r % 2)
        m_probe(&t, &m, k); /* the removal starts at the cursor */
      mt_remove(&t, k);
      model_remove(&m, k);
    } else if (m.n < N) {
      m_insert(&t, &m, k);
    }
    if (r % 4096 == 0)
      m_same(&t, &m);
  }
  m_same(&t, &m);
  assert_true(t.height >= 8); /* 4 keys a node: many levels */
  mt_clear(&t);
  model_free(&m);
}

/* --------------------------------------------------------- P, plain */

static void p_same(const struct ptree *t, const struct model *m) {
  assert_true(pt_check(t) >= 0);
  assert_int_equal(t->count, m->n);
  size_t i = 0;
  for (const struct pnode *lf = pt_first_leaf(t); lf; lf = lf->u.lf.next)
    for (unsigned j = 0; j < lf->n; j++, i++) {
      assert_int_equal(lf->key[j], m->k[i]);
      assert_int_equal(lf->u.lf.val[0][j], m->v0[i]);
    }
  assert_int_equal(i, m->n);
}

/* Keys added in order are appended to the rightmost leaf (the tail), and
 * the tree stays sound when they are then removed in any order. */
static void test_plain_append(void **state) {
  (void)state;
  enum { N = 500 };
  for (int order = 0; order < 3; order++) {
    struct ptree t = {0};
    struct model m = model_new(N);
    uintptr_t keys[N];
    size_t known = 0; /* insertions after which the tail was known */
    for (uintptr_t i = 0; i < N; i++) {
      keys[i] = 8 * (i + 1);
      uintptr_t v = keys[i] ^ 0x55;
      assert_int_equal(pt_insert(&t, keys[i], &v), 0);
      model_insert(&m, keys[i], v, 0);
      p_same(&t, &m); /* (a known tail is the rightmost leaf) */
      known += t.tail != NULL;
    }
    /* Only a split forgets it: with 3 keys a leaf, ascending keys split
     * every other insertion (2 keys stay on each side). */
    assert_true(known >= N / 3);
    if (order == 1)
      for (size_t i = 0; i < N / 2; i++) {
        uintptr_t x = keys[i];
        keys[i] = keys[N - 1 - i];
        keys[N - 1 - i] = x;
      }
    else if (order == 2)
      shuffle(keys, N);
    for (size_t i = 0; i < N; i++) {
      /* The lookup's leaf is where the removal starts. */
      struct pt_pos b, a;
      pt_around(&t, keys[i], &b, &a);
      assert_int_equal(b.lf->key[b.i], keys[i]);
      pt_remove(&t, keys[i]);
      model_remove(&m, keys[i]);
      p_same(&t, &m);
      pt_remove(&t, keys[i]); /* gone: nothing changes */
      p_same(&t, &m);
    }
    assert_null(t.root);
    pt_clear(&t);
    model_free(&m);
  }
}

/* ------------------------------------------- W: the search in a node */

/* The key of a position of W (keys 10, 20, ...: the count of keys <= the
 * key's value / 10), or 0 for none. */
static uintptr_t w_key(struct wt_pos p) { return p.lf ? p.lf->key[p.i] : 0; }

/* Every key of W is 10 * (I + 1) for I < N, but those of GONE (every
 * second one when set): each lookup of every K from 0 to past the last
 * answers as a scan of the keys does. */
static void w_probe_all(struct wtree *t, long n, int gone) {
  for (uintptr_t k = 0; k <= (uintptr_t)(10 * n + 11); k++) {
    uintptr_t le = 0, gt = 0, ge = 0;
    for (long i = 0; i < n; i++) {
      uintptr_t key = (uintptr_t)(10 * (i + 1));
      if (gone && i % 2)
        continue;
      if (key <= k)
        le = key;
      if (key > k && !gt)
        gt = key;
      if (key >= k && !ge)
        ge = key;
    }
    assert_int_equal(w_key(wt_floor(t, k)), le);
    assert_int_equal(w_key(wt_next(t, k, 1)), gt);
    assert_int_equal(w_key(wt_next(t, k, 0)), ge);
    struct wt_pos b, a;
    wt_around(t, k, &b, &a);
    assert_int_equal(w_key(b), le);
    assert_int_equal(w_key(a), gt);
  }
}

/* Nodes of every fill from 1 to 14 keys, leaves and inner nodes: the
 * lookups below, at and above each key. */
static void test_node_search(void **state) {
  (void)state;
  for (long n = 1; n <= 240; n += n < 30 ? 1 : 7) {
    struct wtree t = {0};
    for (long i = 0; i < n; i++) {
      uintptr_t v[1] = {(uintptr_t)i};
      assert_int_equal(wt_insert(&t, (uintptr_t)(10 * (i + 1)), v), 0);
    }
    assert_true(wt_check(&t) >= 0);
    w_probe_all(&t, n, 0);
    for (long i = 1; i < n; i += 2) /* leaves of other fills */
      wt_remove(&t, (uintptr_t)(10 * (i + 1)));
    assert_true(wt_check(&t) >= 0);
    w_probe_all(&t, n, 1);
    wt_clear(&t);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_orders),   cmocka_unit_test(test_boundaries),
      cmocka_unit_test(test_ends),     cmocka_unit_test(test_set),
      cmocka_unit_test(test_many),     cmocka_unit_test(test_plain_append),
      cmocka_unit_test(test_node_search),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
