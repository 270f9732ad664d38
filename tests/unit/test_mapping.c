/* The mapping engine: lookup classification (contained / extends-before /
 * extends-after / size 0), the B+ tree index's invariants and order under
 * inserts and removals (against a plain sorted array), reference counts,
 * declare-target globals, shadow arrays reused, 20 000 live mappings
 * through the data path, many threads mapping at once, and
 * threads that wait for each other's copies only when they map the same
 * data. */
#include "config.h"
#include "data_fake.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/omptarget.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int setup(void **state) {
  (void)state;
  fake_reset();
  return 0;
}

static void test_lookup_classes(void **state) {
  (void)state;
  struct map_table t = {0};
  map_insert(&t, 100, 100, 200, 5000, NULL, 1, 0, MAP_KIND_MAPPED);
  map_insert(&t, 300, 300, 400, 6000, NULL, 1, 0, MAP_KIND_MAPPED);
  struct map_lookup lr;
  map_lookup(&t, 150, 10, &lr);
  assert_true(lr.contained);
  assert_int_equal(lr.entry->hst_begin, 100);
  map_lookup(&t, 100, 100, &lr);
  assert_true(lr.contained);
  map_lookup(&t, 190, 20, &lr);
  assert_false(lr.contained);
  assert_true(lr.extends_after);
  assert_int_equal(lr.entry->hst_begin, 100);
  map_lookup(&t, 290, 20, &lr);
  assert_true(lr.extends_before);
  assert_int_equal(lr.entry->hst_begin, 300);
  map_lookup(&t, 250, 10, &lr);
  assert_null(lr.entry);
  map_lookup(&t, 200, 0, &lr); /* end is exclusive */
  assert_null(lr.entry);
  map_lookup(&t, 399, 0, &lr);
  assert_true(lr.contained);
  assert_ptr_equal(map_find(&t, 150), map_find(&t, 100));
  assert_null(map_find(&t, 99));
  struct map_entry *e = map_find(&t, 100);
  map_remove(&t, e);
  assert_null(map_find(&t, 150));
  assert_int_equal(t.count, 1);
  map_remove(&t, map_find(&t, 300));
  assert_null(t.index.root);
  map_index_clear(&t.index);
  block_pool_release(&t.entries, sizeof(struct map_entry));
}

static int collect(struct map_entry *e, void *arg) {
  uintptr_t *prev = arg;
  assert_true(e->hst_begin > *prev);
  *prev = e->hst_begin;
  return 0;
}

/* The index's height; fails the test when an invariant is broken. */
static int check_index(const struct map_table *t) {
  int h = map_index_check(&t->index);
  assert_true(h >= 0);
  assert_int_equal(t->index.count, t->count);
  return h;
}

static void test_index_balance(void **state) {
  (void)state;
  struct map_table t = {0};
  /* pseudo-random insert order, then remove every third */
  enum { N = 5000 };
  unsigned x = 12345;
  static int used[N];
  memset(used, 0, sizeof used);
  for (int k = 0; k < N; k++) {
    x = x * 1103515245u + 12345u;
    int i = (int)((x >> 8) % N);
    while (used[i])
      i = (i + 1) % N;
    used[i] = 1;
    map_insert(&t, 0, 16 * (uintptr_t)i + 16, 16 * (uintptr_t)i + 24,
               0x100000 + (uintptr_t)i, NULL, 1, 0, MAP_KIND_MAPPED);
  }
  assert_int_equal(t.count, N);
  /* Nodes at least half full: 8^4 < 5000 / 7 < 8^5. */
  assert_true(check_index(&t) <= 5);
  for (int i = 0; i < N; i += 3)
    map_remove(&t, map_find(&t, 16 * (uintptr_t)i + 20));
  check_index(&t);
  uintptr_t prev = 0;
  map_foreach(&t, collect, &prev);
  for (int i = 0; i < N; i++) {
    struct map_entry *e = map_find(&t, 16 * (uintptr_t)i + 17);
    if (i % 3 == 0)
      assert_null(e);
    else
      assert_int_equal(e->tgt_begin, 0x100000 + (uintptr_t)i);
    assert_null(map_find(&t, 16 * (uintptr_t)i + 24)); /* the gaps */
  }
  free(NULL);
  struct map_entry *e;
  while ((e = map_first_from(&t, 0)))
    map_remove(&t, e);
  assert_int_equal(t.count, 0);
  assert_int_equal(check_index(&t), 0);
  map_index_clear(&t.index);
  block_pool_release(&t.entries, sizeof(struct map_entry));
}

/* The index against a sorted array: random inserts and removals (many
 * splits, borrows and merges at every level), checking the invariants
 * and every neighbour query along the way. */
static unsigned long rng_state = 88172645463325252ul;
static unsigned long rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static size_t lower(const uintptr_t *a, size_t n, uintptr_t k) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (a[mid] < k)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void test_index_random(void **state) {
  (void)state;
  enum { KEYS = 3000, STEPS = 60000 };
  static uintptr_t sorted[KEYS];
  size_t n = 0;
  struct map_index ix = {0};
  for (int step = 0; step < STEPS; step++) {
    /* Grow to KEYS, shrink to nothing, grow again: every repair path. */
    int phase = (step / (STEPS / 4)) % 2;
    uintptr_t k = 16 * (1 + rnd() % (4 * KEYS));
    size_t at = lower(sorted, n, k);
    int present = at < n && sorted[at] == k;
    if (!phase && !present && n < KEYS) {
      assert_int_equal(map_index_insert(&ix, k, (void *)(k + 1)), 0);
      memmove(&sorted[at + 1], &sorted[at], (n - at) * sizeof sorted[0]);
      sorted[at] = k;
      n++;
    } else if (phase && n) {
      k = sorted[rnd() % n];
      at = lower(sorted, n, k);
      map_index_remove(&ix, k);
      memmove(&sorted[at], &sorted[at + 1], (n - at - 1) * sizeof sorted[0]);
      n--;
    }
    assert_int_equal(ix.count, n);
    if (step % 97 == 0)
      assert_true(map_index_check(&ix) >= 0);
    uintptr_t q = rnd() % (4 * KEYS * 16 + 32);
    at = lower(sorted, n, q);
    void *fl = map_index_floor(&ix, q), *ab = map_index_above(&ix, q);
    void *ce = map_index_ceil(&ix, q), *f2, *a2;
    map_index_around(&ix, q, &f2, &a2);
    size_t le = at < n && sorted[at] == q ? at + 1 : at; /* keys <= q */
    assert_ptr_equal(fl, le ? (void *)(sorted[le - 1] + 1) : NULL);
    assert_ptr_equal(ab, le < n ? (void *)(sorted[le] + 1) : NULL);
    assert_ptr_equal(ce, at < n ? (void *)(sorted[at] + 1) : NULL);
    assert_ptr_equal(f2, fl);
    assert_ptr_equal(a2, ab);
  }
  assert_true(map_index_check(&ix) >= 0);
  map_index_clear(&ix);
  assert_null(ix.root);
}

/* The exit pattern: a lookup of a key, then its removal (the leaf of the
 * lookup is reused, map_index.h "hint"), in shuffled order at scale; and
 * now and then a lookup of another key first (a hint that does not hold
 * the key), or a removal of a key that is not there. */
static void test_index_lookup_then_remove(void **state) {
  (void)state;
  enum { KEYS = 50000 };
  static uintptr_t keys[KEYS];
  static char live[KEYS];
  struct map_index ix = {0};
  for (size_t i = 0; i < KEYS; i++) {
    keys[i] = 64 * (i + 1);
    live[i] = 1;
    assert_int_equal(map_index_insert(&ix, keys[i], (void *)(keys[i] + 1)), 0);
  }
  size_t order[KEYS];
  for (size_t i = 0; i < KEYS; i++)
    order[i] = i;
  for (size_t i = KEYS - 1; i > 0; i--) {
    size_t j = (size_t)(rnd() % (i + 1)), t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (size_t s = 0; s < KEYS; s++) {
    size_t i = order[s];
    void *f, *a;
    if (s % 7 == 3) /* the hint is some other leaf */
      map_index_around(&ix, keys[order[(s * 31) % KEYS]], &f, &a);
    else
      map_index_around(&ix, keys[i], &f, &a);
    if (s % 7 != 3)
      assert_ptr_equal(f, (void *)(keys[i] + 1));
    map_index_remove(&ix, keys[i]);
    live[i] = 0;
    if (s % 11 == 5) { /* not there (any more): nothing changes */
      map_index_around(&ix, keys[i], &f, &a);
      map_index_remove(&ix, keys[i]);
      map_index_remove(&ix, keys[i] + 8);
    }
    assert_int_equal(ix.count, KEYS - s - 1);
    assert_true(map_index_ceil(&ix, keys[i]) != (void *)(keys[i] + 1));
    if (s % 997 == 0 || KEYS - s < 40) {
      assert_true(map_index_check(&ix) >= 0);
      for (size_t j = 0; j < KEYS; j += 17)
        assert_int_equal(map_index_floor(&ix, keys[j]) == (void *)(keys[j] + 1),
                         live[j]);
    }
  }
  assert_null(ix.root);
  assert_int_equal(ix.count, 0);
  map_index_clear(&ix);
}

/* A removed entry's shadow and back-reference arrays go to the next
 * entries that need them (a launch attaching a struct's member makes and
 * removes both each time), not back to malloc. */
static void test_shadow_arrays_reused(void **state) {
  (void)state;
  struct map_table t = {0};
  struct map_shadow *arr = NULL;
  struct map_backref *refs = NULL;
  for (int round = 0; round < 3; round++) {
    struct map_entry *h =
        map_insert(&t, 100, 100, 116, 5000, NULL, 1, 0, MAP_KIND_MAPPED);
    struct map_entry *p =
        map_insert(&t, 1000, 1000, 5096, 6000, NULL, 1, 0, MAP_KIND_MAPPED);
    struct map_shadow *s = map_shadow_add(&t, h, 108);
    assert_non_null(s);
    s->hst_obj = 1000;
    assert_int_equal(map_backref_add(&t, p, h, 108), 0);
    if (round) {
      assert_ptr_equal(h->shadows, arr);
      assert_ptr_equal(p->refs, refs);
      assert_null(t.spare_shadows);
      assert_null(t.spare_refs);
    }
    assert_int_equal(h->nshadows, 1);
    assert_int_equal(h->shadows[0].hst_addr, 108);
    assert_int_equal(p->nrefs, 1);
    arr = h->shadows;
    refs = p->refs;
    map_remove(&t, p);
    map_remove(&t, h);
    assert_ptr_equal(t.spare_shadows, arr);
    assert_ptr_equal(t.spare_refs, refs);
  }
  free(t.spare_shadows);
  free(t.spare_refs);
  map_index_clear(&t.index);
  block_pool_release(&t.entries, sizeof(struct map_entry));
}

static void test_refcounts(void **state) {
  (void)state;
  struct map_entry e = {.dyn_ref = 1, .hold_ref = 0};
  char buf[24];
  assert_true(map_dec_should_remove(&e, 0, 0));
  map_inc_ref(&e, 1);
  assert_false(map_dec_should_remove(&e, 0, 0));
  assert_int_equal(map_total_ref(&e), 2);
  map_dec_ref(&e, 0);
  assert_true(map_dec_should_remove(&e, 1, 0));
  e.dyn_ref = MAP_REF_INF;
  map_inc_ref(&e, 0);
  assert_true(e.dyn_ref == MAP_REF_INF);
  map_reset_ref(&e, 0);
  assert_true(e.dyn_ref == MAP_REF_INF);
  assert_string_equal(map_ref_str(e.dyn_ref, buf), "INF");
  assert_string_equal(map_ref_str(7, buf), "7");
}

static void test_globals(void **state) {
  (void)state;
  static double g[4], h[2];
  char devg[32], devh[16];
  assert_int_equal(rt_map_global(&fake_dev, g, sizeof g, devg, "g"), 0);
  assert_int_equal(rt_map_global(&fake_dev, g, sizeof g, devg, "g"), 0);
  assert_int_equal(rt_map_global(&fake_dev, h, sizeof h, devh, "h"), 0);
  assert_int_equal(fake_dev.maps->count, 2);
  assert_ptr_equal(dev_addr(&g[1]), devg + 8);
  /* enter/exit data on a global never removes it */
  void *b[1] = {g}, *a[1] = {g};
  int64_t s[1] = {sizeof g}, t[1] = {OMP_TGT_MAPTYPE_FROM};
  __tgt_target_data_end_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  assert_int_equal(fake_dev.maps->count, 2);
  assert_true(omp_target_is_present(g, 0));
  rt_state.info_flags = RT_INFO_DUMP_TABLE;
  ident_t loc = {0, 2, 0, 0, ";dir/x.c;main;12;3;;"};
  cap_start();
  rt_dump_table(&fake_dev, &loc);
  const char *out = cap_end();
  assert_non_null(strstr(out, "Libomptarget device 0 info: OpenMP Host-Device pointer mappings after block at x.c:12:3:\n"));
  assert_non_null(strstr(out, "Host Ptr           Target Ptr         Size (B) DynRefCount HoldRefCount Declaration\n"));
  assert_non_null(strstr(out, " 32       INF         0            unknown at unknown:0:0\n"));
  rt_unmap_globals(&fake_dev, g, (char *)g + sizeof g);
  assert_int_equal(fake_dev.maps->count, 1);
  assert_false(omp_target_is_present(g, 0));
  rt_unmap_globals(&fake_dev, h, (char *)h + sizeof h);
  assert_int_equal(fake_dev.maps->count, 0);
}

static void test_20000_live(void **state) {
  (void)state;
  enum { N = 20000 };
  char *host = malloc(N * 32);
  assert_non_null(host);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < N; i++) {
    void *p = host + 32 * (size_t)i;
    void *b[1] = {p}, *a[1] = {p};
    int64_t s[1] = {16}, t[1] = {OMP_TGT_MAPTYPE_TO};
    __tgt_target_data_begin_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  }
  assert_int_equal(fake_dev.maps->count, N);
  assert_true(check_index(fake_dev.maps) <= 5);
  for (int i = 0; i < N; i++) {
    assert_true(omp_target_is_present(host + 32 * (size_t)i + 15, 0));
    assert_false(omp_target_is_present(host + 32 * (size_t)i + 16, 0));
  }
  for (int i = N - 1; i >= 0; i--) {
    void *p = host + 32 * (size_t)i;
    void *b[1] = {p}, *a[1] = {p};
    int64_t s[1] = {16}, t[1] = {OMP_TGT_MAPTYPE_TO};
    __tgt_target_data_update_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
    t[0] = OMP_TGT_MAPTYPE_FROM;
    __tgt_target_data_end_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  assert_int_equal(fake_dev.maps->count, 0);
  assert_int_equal(fake_outcome_fail, 0);
  assert_true(secs < 2.0); /* O(log n): ~100k operations */
  free(host);
}

/* Threads mapping and unmapping overlapping sets concurrently.  When a
 * data begin returns, the device copy is complete even if another thread
 * created the entry (the copy is made under the map lock, as LLVM 14's
 * LIBOMPTARGET_MAP_FORCE_ATOMIC=true): each worker checks it. */
static char shared_buf[64 * 64];
static int stale_copies; /* atomic */
static void *worker(void *arg) {
  long id = (long)arg;
  for (int round = 0; round < 200; round++) {
    for (int k = 0; k < 64; k++) {
      void *p = shared_buf + 64 * ((k + id) % 64);
      void *b[1] = {p}, *a[1] = {p};
      int64_t s[1] = {64}, t[1] = {OMP_TGT_MAPTYPE_TO};
      __tgt_target_data_begin_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
      const char *d = dev_addr(p);
      if (!d || memcmp(d, p, 64))
        __atomic_add_fetch(&stale_copies, 1, __ATOMIC_RELAXED);
    }
    for (int k = 0; k < 64; k++) {
      void *p = shared_buf + 64 * ((k + id) % 64);
      void *b[1] = {p}, *a[1] = {p};
      int64_t s[1] = {64}, t[1] = {OMP_TGT_MAPTYPE_FROM};
      __tgt_target_data_end_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
    }
  }
  return NULL;
}

static void test_threads(void **state) {
  (void)state;
  pthread_t th[4];
  for (size_t i = 0; i < sizeof shared_buf; i++)
    shared_buf[i] = (char)(i * 7 + 1);
  for (long i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, worker, (void *)i);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  assert_int_equal(fake_dev.maps->count, 0);
  assert_int_equal(fake_outcome_fail, 0);
  assert_int_equal(fake_allocs, fake_frees);
  assert_true(fake_allocs >= 64);
  assert_int_equal(stale_copies, 0);
}

/* ---- the map lock is not held across copies ---- */

static char gated[64], other[64];
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static int done_flag; /* under done_lock: 1 done and right, -1 wrong */

static void set_done(int v) {
  pthread_mutex_lock(&done_lock);
  done_flag = v;
  pthread_mutex_unlock(&done_lock);
}
static int is_done(void) {
  pthread_mutex_lock(&done_lock);
  int v = done_flag;
  pthread_mutex_unlock(&done_lock);
  return v;
}

static void map_list(void *p, int64_t type, int kind) {
  void *b[1] = {p}, *a[1] = {p};
  int64_t s[1] = {64}, t[1] = {type};
  if (kind == 0)
    __tgt_target_data_begin_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  else if (kind == 1)
    __tgt_target_data_update_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
  else
    __tgt_target_data_end_mapper(NULL, 0, 1, b, a, s, t, NULL, NULL);
}

/* The gated thread: enter (0), update (1) or exit (2) of GATED. */
static void *gated_op(void *arg) {
  int kind = (int)(long)arg;
  map_list(gated, kind == 2 ? OMP_TGT_MAPTYPE_FROM : OMP_TGT_MAPTYPE_TO, kind);
  return NULL;
}

/* Enter data of P (to:); its device copy must be complete on return. */
static void *enter_and_check(void *p) {
  map_list(p, OMP_TGT_MAPTYPE_TO, 0);
  const char *d = dev_addr(p);
  set_done(d && !memcmp(d, p, 64) ? 1 : -1);
  return NULL;
}

/* Poll FN for up to MS milliseconds; its last value. */
static int wait_for(int (*fn)(void), int ms) {
  int v = fn();
  for (int i = 0; i < ms && !v; i++) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    v = fn();
  }
  return v;
}

/* While one thread's copy of GATED waits in the plugin (for its enter,
 * update and exit), another thread maps OTHER from start to end. */
static void test_threads_distinct(void **state) {
  (void)state;
  memset(gated, 3, sizeof gated);
  memset(other, 4, sizeof other);
  for (long kind = 0; kind < 3; kind++) {
    if (kind > 0) /* update and exit need GATED mapped */
      map_list(gated, OMP_TGT_MAPTYPE_TO, 0);
    fake_gate_close(gated);
    set_done(0);
    pthread_t a, b;
    pthread_create(&a, NULL, gated_op, (void *)kind);
    assert_int_equal(wait_for(fake_gate_waiting, 10000), 1);
    pthread_create(&b, NULL, enter_and_check, other);
    int other_done = wait_for(is_done, 5000);
    int still_gated = fake_gate_waiting();
    fake_gate_open();
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert_int_equal(still_gated, 1);
    assert_int_equal(other_done, 1); /* did not wait for GATED's copy */
    map_list(other, 0, 2);
    if (kind < 2)
      map_list(gated, 0, 2);
    assert_int_equal(fake_dev.maps->count, 0);
  }
  assert_int_equal(fake_allocs, fake_frees);
  assert_int_equal(fake_outcome_fail, 0);
}

/* While one thread fills GATED (its first copy waits in the plugin),
 * another thread mapping GATED waits, and then finds the copy complete. */
static void test_threads_same(void **state) {
  (void)state;
  memset(gated, 5, sizeof gated);
  fake_gate_close(gated);
  set_done(0);
  pthread_t a, b;
  pthread_create(&a, NULL, gated_op, (void *)0L);
  assert_int_equal(wait_for(fake_gate_waiting, 10000), 1);
  pthread_create(&b, NULL, enter_and_check, gated);
  int early = wait_for(is_done, 200);
  fake_gate_open();
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  assert_int_equal(early, 0);   /* waited for the fill */
  assert_int_equal(is_done(), 1); /* and then saw it complete */
  assert_int_equal(fake_allocs, 1);
  struct map_entry *e = map_find(fake_dev.maps, (uintptr_t)gated);
  assert_non_null(e);
  assert_int_equal(e->dyn_ref, 2);
  assert_int_equal(e->busy, 0);
  map_list(gated, 0, 2);
  map_list(gated, 0, 2);
  assert_int_equal(fake_dev.maps->count, 0);
  assert_int_equal(fake_frees, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_lookup_classes, setup),
      cmocka_unit_test_setup(test_index_balance, setup),
      cmocka_unit_test_setup(test_index_random, setup),
      cmocka_unit_test_setup(test_index_lookup_then_remove, setup),
      cmocka_unit_test_setup(test_refcounts, setup),
      cmocka_unit_test_setup(test_globals, setup),
      cmocka_unit_test_setup(test_20000_live, setup),
      cmocka_unit_test_setup(test_shadow_arrays_reused, setup),
      cmocka_unit_test_setup(test_threads, setup),
      cmocka_unit_test_setup(test_threads_distinct, setup),
      cmocka_unit_test_setup(test_threads_same, setup),
  };
  return cmocka_run_group_tests_name("mapping engine", tests, NULL, NULL);
}
