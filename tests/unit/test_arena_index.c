/* Unit tests of the arena's indexes (src/plugins/emu/arena_index.c): the
 * table of live blocks by start, the treaps with priorities computed from
 * the key, and the pool's one-line nodes; insertions and removals in
 * shuffled order, at scale. */
#include "config.h"
#include "arena_index.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

static uint64_t rng_state;

static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static void shuffle(size_t *v, size_t n) {
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)(rng() % (i + 1)), t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

#define BASE ((uintptr_t)0x7e0000000000ULL) /* never dereferenced */
#define GRAN ((size_t)256)

/* Into *ROOT, a node from POOL for each of the N keys BASE + ORDER[k] *
 * STEP * GRAN, in that order. */
static void insert_keys(struct anode **root, struct apool *pool,
                        const size_t *order, size_t n, size_t step) {
  for (size_t k = 0; k < n; k++) {
    struct anode *a = apool_get(pool);
    assert_non_null(a);
    a->key = BASE + order[k] * step * GRAN;
    a->len = GRAN;
    atree_insert(root, a);
  }
}

/* 100 000 blocks set and cleared in shuffled orders: each start finds its
 * node while live and nothing once cleared; addresses that cannot start a
 * block find nothing. */
static void test_slots_scale(void **state) {
  (void)state;
  enum { N = 100000, SLOTS = 4 * N };
  struct aslots s;
  assert_int_equal(aslots_init(&s, BASE, SLOTS * GRAN, GRAN), 0);
  static struct anode nodes[N];
  size_t *idx = malloc(SLOTS * sizeof *idx);
  char *live = calloc(SLOTS, 1);
  assert_non_null(idx);
  assert_non_null(live);
  for (size_t i = 0; i < SLOTS; i++)
    idx[i] = i;
  rng_state = 0x9e3779b97f4a7c15ull;
  shuffle(idx, SLOTS); /* the first N are the blocks' slots */
  for (size_t i = 0; i < N; i++) {
    nodes[i].key = BASE + idx[i] * GRAN;
    aslots_set(&s, nodes[i].key, &nodes[i]);
    live[idx[i]] = 1;
  }
  for (size_t i = 0; i < N; i++)
    assert_ptr_equal(aslots_get(&s, nodes[i].key), &nodes[i]);
  size_t *order = malloc(N * sizeof *order);
  assert_non_null(order);
  for (size_t i = 0; i < N; i++)
    order[i] = i;
  shuffle(order, N);
  for (size_t k = 0; k < N; k++) {
    size_t i = order[k];
    aslots_set(&s, nodes[i].key, NULL);
    live[idx[i]] = 0;
    if (k % 9973 == 0) /* now and then, every slot against the model */
      for (size_t j = 0; j < SLOTS; j++) {
        struct anode *n = aslots_get(&s, BASE + j * GRAN);
        if (live[j])
          assert_non_null(n);
        else
          assert_null(n);
      }
  }
  for (size_t j = 0; j < SLOTS; j++)
    assert_null(aslots_get(&s, BASE + j * GRAN));
  /* One block again: found at its start only. */
  aslots_set(&s, BASE + 5 * GRAN, &nodes[0]);
  assert_ptr_equal(aslots_get(&s, BASE + 5 * GRAN), &nodes[0]);
  assert_null(aslots_get(&s, BASE + 5 * GRAN + 8));
  assert_null(aslots_get(&s, BASE + 5 * GRAN - 1));
  assert_null(aslots_get(&s, BASE - GRAN));
  assert_null(aslots_get(&s, BASE + (SLOTS + 8) * GRAN));
  assert_null(aslots_get(&s, 0));
  aslots_release(&s);
  assert_null(s.v);
  free(order);
  free(live);
  free(idx);
}

/* Both ends of the range hold a slot. */
static void test_slots_ends(void **state) {
  (void)state;
  struct aslots s;
  size_t span = 1024 * GRAN;
  assert_int_equal(aslots_init(&s, BASE, span, GRAN), 0);
  struct anode a = {0}, b = {0};
  aslots_set(&s, BASE, &a);
  aslots_set(&s, BASE + span - GRAN, &b);
  assert_ptr_equal(aslots_get(&s, BASE), &a);
  assert_ptr_equal(aslots_get(&s, BASE + span - GRAN), &b);
  assert_null(aslots_get(&s, BASE + span));
  aslots_release(&s);
}

struct collect {
  uintptr_t *keys;
  size_t n;
};

static void collect_one(struct anode *n, void *arg) {
  struct collect *c = arg;
  c->keys[c->n++] = n->key;
}

/* The model's largest key <= P (KEYS sorted, LIVE flags), or 0. */
static uintptr_t model_floor(const char *live, size_t n, uintptr_t p) {
  for (size_t i = n; i-- > 0;)
    if (live[i] && BASE + i * GRAN <= p)
      return BASE + i * GRAN;
  return 0;
}

static uintptr_t model_ceil(const char *live, size_t n, uintptr_t p) {
  for (size_t i = 0; i < n; i++)
    if (live[i] && BASE + i * GRAN >= p)
      return BASE + i * GRAN;
  return 0;
}

/* 20 000 nodes inserted and removed in shuffled orders: the walk gives
 * the keys in order, floor and ceil agree with a model, and the same keys
 * inserted in another order make the same tree (priorities are a hash of
 * the key). */
static void test_treap_scale(void **state) {
  (void)state;
  enum { N = 20000 };
  struct apool pool = {0};
  struct anode *root = NULL, *root2 = NULL;
  size_t *order = malloc(N * sizeof *order);
  char *live = calloc(N, 1);
  uintptr_t *keys = malloc(N * sizeof *keys);
  assert_non_null(order);
  assert_non_null(live);
  assert_non_null(keys);
  for (size_t i = 0; i < N; i++)
    order[i] = i;
  rng_state = 88172645463325252ull;
  shuffle(order, N);
  insert_keys(&root, &pool, order, N, 1);
  for (size_t k = 0; k < N; k++)
    live[order[k]] = 1;
  shuffle(order, N);
  insert_keys(&root2, &pool, order, N, 1);
  assert_int_equal(root->key, root2->key);
  assert_int_equal(root->l ? root->l->key : 0, root2->l ? root2->l->key : 0);
  assert_int_equal(root->r ? root->r->key : 0, root2->r ? root2->r->key : 0);
  shuffle(order, N);
  for (size_t k = 0; k < N; k++) {
    struct anode *n = atree_remove(&root, BASE + order[k] * GRAN);
    assert_non_null(n);
    assert_int_equal(n->key, BASE + order[k] * GRAN);
    apool_put(&pool, n);
    live[order[k]] = 0;
    if (k % 997 == 0) {
      struct collect c = {keys, 0};
      atree_walk(root, collect_one, &c);
      assert_int_equal(c.n, N - k - 1);
      for (size_t i = 1; i < c.n; i++)
        assert_true(keys[i - 1] < keys[i]);
      for (int t = 0; t < 50; t++) {
        uintptr_t p = BASE + (uintptr_t)(rng() % ((N + 2) * GRAN)) - GRAN;
        struct anode *f = atree_floor(root, p), *c2 = atree_ceil(root, p);
        assert_int_equal(f ? f->key : 0, model_floor(live, N, p));
        assert_int_equal(c2 ? c2->key : 0, model_ceil(live, N, p));
      }
    }
  }
  assert_null(root);
  assert_null(atree_remove(&root, BASE));
  apool_release(&pool);
  free(keys);
  free(live);
  free(order);
}

/* 1 if trees A and B have the same shape and keys. */
/* Nodes are one cache line each, aligned, zeroed, and reused. */
static void test_pool_lines(void **state) {
  (void)state;
  struct apool pool = {0};
  enum { N = 1000 };
  struct anode *v[N];
  assert_int_equal(sizeof(struct anode), 64);
  for (int i = 0; i < N; i++) {
    v[i] = apool_get(&pool);
    assert_non_null(v[i]);
    assert_int_equal((uintptr_t)v[i] % 64, 0);
    assert_int_equal(v[i]->key | v[i]->len | v[i]->size | v[i]->off |
                         v[i]->flags | v[i]->born,
                     0);
    assert_null(v[i]->next);
    v[i]->key = (uintptr_t)i + 1;
    v[i]->born = 7;
  }
  struct anode *last = v[N - 1];
  apool_put(&pool, last);
  struct anode *again = apool_get(&pool);
  assert_ptr_equal(again, last);
  assert_int_equal(again->key | again->born, 0);
  /* The block's address is its extent's start plus its offset. */
  again->key = BASE;
  again->off = 4000;
  assert_int_equal(anode_start(again), BASE + 4000);
  apool_release(&pool);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_slots_scale),
      cmocka_unit_test(test_slots_ends),
      cmocka_unit_test(test_treap_scale),
      cmocka_unit_test(test_pool_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
