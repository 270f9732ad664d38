/* Unit tests of the emu arena's allocation and copy checks
 * (src/plugins/emu/arena.c, arena_freeset.c, arena_fill.c): addresses
 * against a model of first fit with the reuse delay, and with check mode's
 * layout and quarantine, and the copy checks made without the lock. */
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

/* First fit: LEN bytes cut from the front of the lowest free extent that
 * holds them, its start in *K; 0 if none does. */
static int model_first_fit(struct model *m, size_t len, uintptr_t *k) {
  for (int i = 0; i < m->n; i++)
    if (m->len[i] >= len) {
      *k = m->key[i];
      m->key[i] += len;
      m->len[i] -= len;
      if (!m->len[i]) {
        memmove(&m->key[i], &m->key[i + 1], (m->n - i - 1) * sizeof *k);
        memmove(&m->len[i], &m->len[i + 1],
                (m->n - i - 1) * sizeof m->len[0]);
        m->n--;
      }
      return 1;
    }
  return 0;
}

static uintptr_t model_alloc(struct model *m, size_t size) {
  size_t len = (size + 255) / 256 * 256;
  if (m->in_use + len > m->cap)
    return 0;
  for (;;) {
    uintptr_t k;
    if (model_first_fit(m, len, &k)) {
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

/* Check mode's side of the model: a block takes whole pages and a guard
 * page, and a freed one waits in the quarantine (a FIFO) until more than
 * EMU_CHECK_QUARANTINE_MAX wait or the small ones keep more than
 * EMU_CHECK_QUARANTINE_KEPT bytes, then goes back in runs of blocks that
 * follow each other in memory, EMU_CHECK_RELEASE_BATCH beyond the bound
 * at a time; or one by one, oldest first, when nothing fits. */
enum { QMAX = 8192 };
struct qmodel {
  uintptr_t key[QMAX];
  size_t len[QMAX], body[QMAX];
  int head, tail;
  size_t kept;
};

static size_t model_body(size_t size) {
  size_t al = size % 16 == 0 ? 16 : 8;
  size_t b = ((size ? size : 1) + al - 1) / al * al;
  return (b + 4095) / 4096 * 4096;
}

static int qmodel_over(const struct qmodel *q, int by_count) {
  return by_count ? q->tail - q->head > EMU_CHECK_QUARANTINE_MAX
                  : q->kept > EMU_CHECK_QUARANTINE_KEPT;
}

static void qmodel_pop(struct model *m, struct qmodel *q, uintptr_t *k,
                       size_t *len) {
  int c = q->head++ % QMAX;
  if (q->body[c] <= EMU_CHECK_KEEP_MAX)
    q->kept -= q->body[c];
  *k = q->key[c];
  *len = q->len[c];
  (void)m;
}

static void qmodel_release_run(struct model *m, struct qmodel *q,
                               int by_count) {
  uintptr_t k, k2;
  size_t len, len2;
  qmodel_pop(m, q, &k, &len);
  while (q->head != q->tail && q->key[q->head % QMAX] == k + len &&
         qmodel_over(q, by_count)) {
    qmodel_pop(m, q, &k2, &len2);
    len += len2;
  }
  model_insert(m, k, len);
}

static uintptr_t qmodel_alloc(struct model *m, struct qmodel *q,
                              size_t size) {
  size_t charge = ((size ? size : 1) + 255) / 256 * 256;
  if (m->in_use + charge > m->cap)
    return 0;
  size_t body = model_body(size), len = body + 4096;
  size_t al = size % 16 == 0 ? 16 : 8;
  size_t off = body - ((size ? size : 1) + al - 1) / al * al;
  for (;;) {
    uintptr_t k;
    if (model_first_fit(m, len, &k)) {
      m->in_use += charge;
      return k + off;
    }
    if (q->head == q->tail)
      return 0;
    size_t l;
    qmodel_pop(m, q, &k, &l);
    model_insert(m, k, l);
  }
}

static void qmodel_free(struct model *m, struct qmodel *q, uintptr_t p,
                        size_t size) {
  size_t body = model_body(size);
  m->in_use -= ((size ? size : 1) + 255) / 256 * 256;
  int c = q->tail++ % QMAX;
  q->key[c] = p & ~(uintptr_t)4095; /* a block starts in its first page */
  q->len[c] = body + 4096;
  q->body[c] = body;
  if (body <= EMU_CHECK_KEEP_MAX)
    q->kept += body;
  if (q->tail - q->head >= EMU_CHECK_QUARANTINE_MAX + EMU_CHECK_RELEASE_BATCH)
    while (qmodel_over(q, 1))
      qmodel_release_run(m, q, 1);
  if (q->kept >= EMU_CHECK_QUARANTINE_KEPT + EMU_CHECK_RELEASE_BATCH * 4096)
    while (qmodel_over(q, 0))
      qmodel_release_run(m, q, 0);
}

/* Check mode: random allocations and frees of blocks of one page, two
 * and more than EMU_CHECK_KEEP_MAX bytes, some freed in runs, give the
 * model's addresses: the quarantine's runs coming back beside free
 * extents and apart from them, in the tree of free extents and beside it
 * (arena_freeset.c, SIDE: full, its highest pushed into the tree), exact
 * and partial reuse. */
static void test_check_first_fit_model(void **state) {
  (void)state;
  enum { LIVE = 400 };
  static struct model m;
  static struct qmodel q;
  size_t cap = 64 * MB;
  struct emu_arena *a =
      arena_create_ex("data", 0, TB(31), cap, 256, ARENA_CHECK, cap);
  assert_non_null(a);
  memset(&m, 0, sizeof m);
  memset(&q, 0, sizeof q);
  m.cap = cap;
  model_insert(&m, TB(31) + 4096, cap - 4096);
  static uintptr_t live[LIVE];
  static size_t sz[LIVE];
  uint64_t rng = 0x2545F4914F6CDD1Dull;
  for (int step = 0; step < 30000; step++) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    int i = (int)(rng % LIVE);
    /* Now and then a run: the blocks allocated one after another. */
    int run = (rng >> 40) % 16 == 0 ? 8 : 1;
    for (int r = 0; r < run; r++, i = (i + 1) % LIVE) {
      if (live[i]) {
        assert_int_equal(arena_free(a, (void *)live[i]), 0);
        qmodel_free(&m, &q, live[i], sz[i]);
        live[i] = 0;
      } else {
        size_t k = (rng >> 20) % 8;
        sz[i] = k < 5 ? 64 : k < 7 ? 4096 + 8 * (rng >> 24) % 512 : 20000;
        uintptr_t want = qmodel_alloc(&m, &q, sz[i]);
        void *got = arena_alloc(a, sz[i]);
        assert_int_equal((uintptr_t)got, want);
        live[i] = want;
      }
    }
  }
  assert_int_equal(arena_in_use(a), m.in_use);
  arena_destroy(a);
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
      cmocka_unit_test(test_check_first_fit_model),
      cmocka_unit_test(test_unlocked_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
