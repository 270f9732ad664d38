/* Unit tests of the emu arena's allocation and copy checks
 * (src/plugins/emu/arena.c, arena_fill.c): addresses against a model of
 * first fit with the reuse delay, and the copy checks made without the
 * lock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdint.h>
#include <string.h>

#include "arena.h"
#include "arena_internal.h"
#include "arena_testutil.h"

/* A model of the allocator's contract: address-ordered first fit over
 * coalesced free extents, with the reuse delay (a FIFO of freed blocks,
 * given back oldest first past MAX_BLOCKS or MAX_BYTES, or when nothing
 * fits).  Charges are multiples of 256; sizes leave room for ASan's red
 * zone, so the layout is the same with or without it. */
enum { MODEL_EXT = 4096 };
struct model {
  uintptr_t key[MODEL_EXT];
  size_t len[MODEL_EXT];
  int n;
  uintptr_t cool[MODEL_EXT];
  size_t coollen[MODEL_EXT];
  int chead, ctail;
  size_t cbytes, in_use, cap, max_blocks, max_bytes;
};

static void model_insert(struct model *m, uintptr_t k, size_t len) {
  int i = 0;
  while (i < m->n && m->key[i] < k)
    i++;
  int pred = i > 0 && m->key[i - 1] + m->len[i - 1] == k;
  int succ = i < m->n && m->key[i] == k + len;
  if (pred && succ) {
    m->len[i - 1] += len + m->len[i];
    memmove(&m->key[i], &m->key[i + 1], (m->n - i - 1) * sizeof m->key[0]);
    memmove(&m->len[i], &m->len[i + 1], (m->n - i - 1) * sizeof m->len[0]);
    m->n--;
  } else if (pred) {
    m->len[i - 1] += len;
  } else if (succ) {
    m->key[i] = k;
    m->len[i] += len;
  } else {
    assert_true(m->n < MODEL_EXT);
    memmove(&m->key[i + 1], &m->key[i], (m->n - i) * sizeof m->key[0]);
    memmove(&m->len[i + 1], &m->len[i], (m->n - i) * sizeof m->len[0]);
    m->key[i] = k;
    m->len[i] = len;
    m->n++;
  }
}

static int model_cool_release(struct model *m) {
  if (m->chead == m->ctail)
    return -1;
  int c = m->chead++ % MODEL_EXT;
  m->cbytes -= m->coollen[c];
  model_insert(m, m->cool[c], m->coollen[c]);
  return 0;
}

static uintptr_t model_alloc(struct model *m, size_t size) {
  size_t len = (size + 255) / 256 * 256;
  if (m->in_use + len > m->cap)
    return 0;
  for (;;) {
    for (int i = 0; i < m->n; i++)
      if (m->len[i] >= len) {
        uintptr_t k = m->key[i];
        m->key[i] += len;
        m->len[i] -= len;
        if (!m->len[i]) {
          memmove(&m->key[i], &m->key[i + 1], (m->n - i - 1) * sizeof k);
          memmove(&m->len[i], &m->len[i + 1],
                  (m->n - i - 1) * sizeof m->len[0]);
          m->n--;
        }
        m->in_use += len;
        return k;
      }
    if (model_cool_release(m) != 0)
      return 0;
  }
}

static void model_free(struct model *m, uintptr_t k, size_t size) {
  size_t len = (size + 255) / 256 * 256;
  m->in_use -= len;
  if (!m->max_blocks || len > m->max_bytes) {
    model_insert(m, k, len);
    return;
  }
  int c = m->ctail++ % MODEL_EXT;
  m->cool[c] = k;
  m->coollen[c] = len;
  m->cbytes += len;
  while ((size_t)(m->ctail - m->chead) > m->max_blocks ||
         m->cbytes > m->max_bytes)
    model_cool_release(m);
}

/* Random allocations and frees of mixed sizes, with and without the reuse
 * delay, give the model's addresses: frees beside and apart from free
 * extents, exact and partial reuse of a block the delay gave back, and
 * allocations that fail and make the delay give everything back. */
static void test_first_fit_model(void **state) {
  (void)state;
  enum { LIVE = 600 };
  static const size_t delays[][2] = {{0, 0}, {1, 64 * MB}, {4, 64 * MB},
                                     {16, 8192}};
  static struct model m;
  for (unsigned d = 0; d < sizeof delays / sizeof delays[0]; d++) {
    size_t cap = 1 * MB;
    struct emu_arena *a = arena_create("data", 0, TB(20), cap, 256);
    assert_non_null(a);
    arena_set_reuse_delay(a, delays[d][0], delays[d][1]);
    memset(&m, 0, sizeof m);
    m.cap = cap;
    m.max_blocks = delays[d][0];
    m.max_bytes = delays[d][1];
    model_insert(&m, TB(20), cap);
    uintptr_t live[LIVE] = {0};
    size_t sz[LIVE];
    uint64_t rng = 0x9E3779B97F4A7C15ull + d;
    for (int step = 0; step < 40000; step++) {
      rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
      int i = (int)(rng % LIVE);
      if (live[i]) {
        assert_int_equal(arena_free(a, (void *)live[i]), 0);
        model_free(&m, live[i], sz[i]);
        live[i] = 0;
      } else {
        /* Mostly one size (a block the delay gives back fits exactly),
         * sometimes a smaller or a larger one. */
        size_t k = (rng >> 20) % 8;
        sz[i] = k < 5 ? 4096 - 64 : k < 7 ? 256 * (1 + (rng >> 24) % 8) - 32
                                         : 64 * 1024 - 64;
        uintptr_t want = model_alloc(&m, sz[i]);
        void *got = arena_alloc(a, sz[i]);
        assert_int_equal((uintptr_t)got, want);
        live[i] = want;
      }
    }
    assert_int_equal(arena_in_use(a), m.in_use);
    arena_destroy(a);
  }
}

static int all_poison(const void *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (peek((const unsigned char *)p + i) != 0xA5)
      return 0;
  return 1;
}

/* The checks of copies to and from a block that owes nothing are made
 * without the lock (arena_settled_unlocked): they still pay a block's owed
 * poison first, refuse what overruns the block, find interior pointers,
 * and refuse a freed block and a smaller block allocated where it was. */
static void test_unlocked_checks(void **state) {
  (void)state;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(21), 1 * MB, 256, ARENA_LAZY, 1 * MB);
  assert_non_null(a);
  char *p = arena_alloc(a, 64);
  assert_non_null(p);
  /* Owed: the read pays it. */
  assert_int_equal(arena_read_begin(a, p, 64), 0);
  assert_true(all_poison(p, 64));
  memset(p, 1, 64);
  assert_int_equal(arena_write_begin(a, p, 64), 0);
  assert_int_equal(arena_read_begin(a, p, 64), 0);
  assert_int_equal(arena_check(a, p, 64), 0);
  assert_int_equal(arena_check(a, p, 65), -1);
  assert_int_equal(arena_read_begin(a, p, 65), -1);
  assert_int_equal(arena_write_begin(a, p, 65), -1);
  assert_int_equal(arena_check(a, p + 8, 8), 0);
  assert_int_equal(arena_check(a, p + 256, 8), -1);
  assert_int_equal(arena_free(a, p), 0);
  assert_int_equal(arena_check(a, p, 8), -1);
  assert_int_equal(arena_read_begin(a, p, 8), -1);
  assert_int_equal(arena_write_begin(a, p, 8), -1);
  /* No reuse delay here: the same address, a smaller block, owing its
   * poison again. */
  char *q = arena_alloc(a, 32);
  assert_ptr_equal(q, p);
  assert_int_equal(arena_read_begin(a, q, 64), -1);
  assert_int_equal(arena_write_begin(a, q, 16), 0); /* the rest is filled */
  assert_true(all_poison(q + 16, 16));
  assert_int_equal(arena_check(a, q, 32), 0);
  assert_int_equal(arena_check(a, q, 33), -1);
  assert_int_equal(arena_free(a, q), 0);
  arena_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_first_fit_model),
      cmocka_unit_test(test_unlocked_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
