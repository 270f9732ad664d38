/* Unit tests of the arena's free-extent tree
 * (src/plugins/emu/arena_extents.c): every operation, and the tags the
 * extents carry, checked against a plain sorted array, with the tree's
 * invariants (order, fill, depth, links, maxima) after each change;
 * removals in shuffled and in address order, and at scale. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arena_extents.h"

/* The reference: extents sorted by key. */
struct model {
  struct xt_ext *v;
  size_t n;
};

static size_t model_pos(const struct model *m, uintptr_t k) {
  size_t lo = 0, hi = m->n; /* first index with key >= K */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (m->v[mid].key < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void model_insert(struct model *m, uintptr_t k, size_t len,
                         unsigned long tag) {
  size_t i = model_pos(m, k);
  memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof m->v[0]);
  m->v[i] = (struct xt_ext){k, len, tag};
  m->n++;
}

static void model_remove(struct model *m, size_t i) {
  memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof m->v[0]);
  m->n--;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return rng;
}

struct walk {
  const struct model *m;
  size_t i;
};

static void walk_one(uintptr_t key, size_t len, void *arg) {
  struct walk *w = arg;
  assert_true(w->i < w->m->n);
  assert_int_equal(key, w->m->v[w->i].key);
  assert_int_equal(len, w->m->v[w->i].len);
  w->i++;
}

/* Tree and model hold the same extents; queries agree at a few points. */
static void agree(const struct xtree *t, const struct model *m) {
  assert_true(xt_check(t) >= 0);
  assert_int_equal(t->count, m->n);
  struct walk w = {m, 0};
  xt_foreach(t, walk_one, &w);
  assert_int_equal(w.i, m->n);
}

static void query_agrees(const struct xtree *t, const struct model *m,
                         uintptr_t k, size_t want) {
  struct xt_ext lo, hi, f;
  xt_around(t, k, &lo, &hi);
  size_t i = model_pos(m, k + 1); /* first key > K */
  if (i > 0) {
    assert_int_equal(lo.key, m->v[i - 1].key);
    assert_int_equal(lo.len, m->v[i - 1].len);
    assert_int_equal(lo.tag, m->v[i - 1].tag);
  } else {
    assert_int_equal(lo.len, 0);
  }
  if (i < m->n) {
    assert_int_equal(hi.key, m->v[i].key);
    assert_int_equal(hi.len, m->v[i].len);
    assert_int_equal(hi.tag, m->v[i].tag);
  } else {
    assert_int_equal(hi.len, 0);
  }
  size_t j = 0;
  while (j < m->n && m->v[j].len < want)
    j++;
  int rc = xt_first_fit(t, want, &f);
  if (j == m->n) {
    assert_int_equal(rc, -1);
  } else {
    assert_int_equal(rc, 0);
    assert_int_equal(f.key, m->v[j].key);
    assert_int_equal(f.len, m->v[j].len);
    assert_int_equal(f.tag, m->v[j].tag);
  }
}

/* N extents of random lengths at keys 16 * i (so neighbours never touch
 * and each may grow or move by up to 8), inserted in a shuffled order,
 * then changed and removed in random order, checked step by step when
 * N is small (EVERY 1) or every EVERY steps. */
static void churn(size_t n, size_t every) {
  struct xtree t;
  memset(&t, 0, sizeof t);
  struct model m = {calloc(n + 1, sizeof(struct xt_ext)), 0};
  size_t *order = malloc(n * sizeof *order);
  assert_non_null(m.v);
  assert_non_null(order);
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = next_rand() % (i + 1), k = order[i];
    order[i] = order[j], order[j] = k;
  }
  for (size_t s = 0; s < n; s++) {
    size_t len = 1 + next_rand() % 8;
    unsigned long tag = next_rand() % 1000;
    assert_int_equal(xt_insert(&t, 0x1000 + 16 * order[s], len, tag), 0);
    model_insert(&m, 0x1000 + 16 * order[s], len, tag);
    if (s % every == 0) {
      agree(&t, &m);
      query_agrees(&t, &m, 0x1000 + 16 * (next_rand() % n) + 3,
                   1 + next_rand() % 9);
    }
  }
  agree(&t, &m);
  /* Move and resize extents in place: the front moves up (an allocation
   * taking the front) or down (a merge with a freed block before it). */
  for (size_t s = 0; s < n; s++) {
    size_t i = next_rand() % m.n;
    uintptr_t k = m.v[i].key, base = k & ~(uintptr_t)15;
    uintptr_t nk = base + next_rand() % 8;
    size_t nlen = 1 + next_rand() % 8;
    unsigned long ntag = next_rand() % 1000;
    xt_set(&t, k, nk, nlen, ntag);
    m.v[i] = (struct xt_ext){nk, nlen, ntag};
    if (s % every == 0) {
      agree(&t, &m);
      query_agrees(&t, &m, nk, 1 + next_rand() % 9);
      query_agrees(&t, &m, nk - 1, nlen);
    }
  }
  agree(&t, &m);
  /* Remove all in a shuffled order. */
  for (size_t s = 0; s < n; s++) {
    size_t i = next_rand() % m.n;
    xt_remove(&t, m.v[i].key);
    model_remove(&m, i);
    if (s % every == 0 || m.n < 64) {
      agree(&t, &m);
      if (m.n)
        query_agrees(&t, &m, m.v[next_rand() % m.n].key, 4);
    }
  }
  agree(&t, &m);
  assert_null(t.root);
  assert_int_equal(t.height, 0);
  xt_clear(&t);
  free(order);
  free(m.v);
}

static void test_small_churn(void **state) {
  (void)state;
  for (size_t n = 1; n <= 200; n += 13)
    churn(n, 1);
}

static void test_medium_churn(void **state) {
  (void)state;
  churn(3000, 1);
}

static void test_scale(void **state) {
  (void)state;
  churn(100000, 997);
}

/* Removal in address order and in reverse order: every merge and borrow
 * from one side; the tree stays valid down to empty. */
static void test_ordered_removal(void **state) {
  (void)state;
  for (int dir = 0; dir < 2; dir++) {
    struct xtree t;
    memset(&t, 0, sizeof t);
    enum { N = 5000 };
    for (uintptr_t i = 0; i < N; i++)
      assert_int_equal(xt_insert(&t, 0x100 + 0x10 * i, 1 + i % 7, i), 0);
    assert_true(xt_check(&t) >= 3);
    for (uintptr_t s = 0; s < N; s++) {
      uintptr_t i = dir ? N - 1 - s : s;
      xt_remove(&t, 0x100 + 0x10 * i);
      assert_true(xt_check(&t) >= 0);
      assert_int_equal(t.count, N - 1 - s);
    }
    assert_null(t.root);
    xt_clear(&t);
  }
}

/* First fit picks the lowest extent that is long enough, also when the
 * only one is far right, and none when none is. */
static void test_first_fit(void **state) {
  (void)state;
  struct xtree t;
  memset(&t, 0, sizeof t);
  struct xt_ext f;
  assert_int_equal(xt_first_fit(&t, 1, &f), -1);
  for (uintptr_t i = 0; i < 1000; i++)
    assert_int_equal(xt_insert(&t, 0x10000 + 0x100 * i, 0x10, 1), 0);
  assert_int_equal(xt_insert(&t, 0x10000 + 0x100 * 1000, 0x80, 2), 0);
  assert_int_equal(xt_first_fit(&t, 0x10, &f), 0);
  assert_int_equal(f.key, 0x10000);
  assert_int_equal(xt_first_fit(&t, 0x11, &f), 0);
  assert_int_equal(f.key, 0x10000 + 0x100 * 1000);
  assert_int_equal(f.len, 0x80);
  assert_int_equal(f.tag, 2);
  assert_int_equal(xt_first_fit(&t, 0x81, &f), -1);
  /* Shrinking the long one from the front (an allocation) keeps the
   * maxima right. */
  xt_set(&t, 0x10000 + 0x100 * 1000, 0x10000 + 0x100 * 1000 + 0x70, 0x10, 2);
  assert_true(xt_check(&t) >= 0);
  assert_int_equal(xt_first_fit(&t, 0x11, &f), -1);
  /* Growing one in the middle (a merge). */
  xt_set(&t, 0x10000 + 0x100 * 500, 0x10000 + 0x100 * 500 - 0x20, 0x40, 3);
  assert_true(xt_check(&t) >= 0);
  assert_int_equal(xt_first_fit(&t, 0x11, &f), 0);
  assert_int_equal(f.key, 0x10000 + 0x100 * 500 - 0x20);
  assert_int_equal(f.tag, 3);
  xt_clear(&t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_small_churn),
      cmocka_unit_test(test_medium_churn),
      cmocka_unit_test(test_scale),
      cmocka_unit_test(test_ordered_removal),
      cmocka_unit_test(test_first_fit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
