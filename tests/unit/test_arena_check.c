/* Unit tests of the device memory arena in check mode
 * (src/plugins/emu/arena*.c, arena_protect.c): guard pages, slack
 * canaries, the NaN poison, poisoned-byte counts, freed blocks protected
 * lazily, and the fault handler's messages (fault.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "arena.h"
#include "arena_internal.h"
#include "arena_testutil.h"
#include "devicertl.h"
#include "emu_testutil.h"
#include "fault.h"

/* Check mode: a block ends where its page ends (8 or 16-byte aligned),
 * the next page is a guard, the rest of the range is PROT_NONE, freed
 * blocks are PROT_NONE, and the poison is a NaN as float and double. */
static void test_check_layout(void **state) {
  (void)state;
  struct emu_arena *a = arena_create_ex("data", 0, TB(20), 4 * MB, 256,
                                        ARENA_CHECK, 64 * MB);
  assert_non_null(a);
  double *d = arena_alloc(a, 1000 * sizeof(double));
  assert_int_equal(((uintptr_t)d + 8000) % 4096, 0);
  assert_int_equal((uintptr_t)d % 16, 0);
  /* A size with an odd factor ends at the guard page too: aligned only to
   * the largest power of two dividing it (an odd number of floats). */
  char *c = arena_alloc(a, 13);
  assert_int_equal(((uintptr_t)c + 13) % 4096, 0);
  float *g = arena_alloc(a, 999 * sizeof(float));
  assert_int_equal(((uintptr_t)g + 3996) % 4096, 0);
  assert_int_equal((uintptr_t)g % 4, 0);
  assert_true(arena_owns(a, (char *)TB(20) + 32 * MB)); /* the span */
  arena_settle(a);
  assert_true(isnan(d[0]) && isnan(d[999]));
  float *f = (float *)d;
  assert_true(isnan(f[1]));
  assert_int_equal(((int32_t *)d)[3], -678491);
  assert_true(faults((char *)d + 8000));         /* the guard page */
  assert_true(faults((char *)TB(20)));           /* the first page */
  assert_true(faults((char *)TB(20) + 32 * MB)); /* never allocated */
  assert_false(faults((char *)d + 7999));
  assert_true(faults(c + 13));
  assert_true(faults((char *)(g + 999)));
  size_t count = 0;
  d[10] = 1.0;
  assert_int_equal(arena_poisoned_bytes(a, d, 8000, &count), 0);
  assert_int_equal(count, 8000 - 8);
  assert_int_equal(arena_free(a, d), 0);
  /* What a kernel launch given D does first (arena_protect.c). */
  arena_settle(a);
  arena_note_kernel(a, d, (void *)0x1234);
  assert_true(faults((char *)d)); /* quarantined */
  /* A freed block is not handed out again while the range has room. */
  double *e = arena_alloc(a, 8000);
  assert_ptr_not_equal(e, d);
  /* Capacity counts what was asked for, as in the default mode (E, C and
   * G, rounded to the arena's 256 bytes). */
  assert_int_equal(arena_in_use(a), 8192 + 256 + 4096);
  assert_null(arena_alloc(a, 4 * MB));
  /* The slack before a block is checked when it is freed. */
  poke(c - 1, 'x');
  struct capture cap;
  capture_begin(&cap);
  assert_int_equal(arena_free(a, c), 0);
  char *out = capture_end(&cap);
  char want[300];
  snprintf(want, sizeof want, "device 0: check: device memory before the "
           "start of the data block [0x%016lx, 0x%016lx) of 13 bytes was "
           "written, up to 1 bytes before it; found when it was freed",
           (unsigned long)c, (unsigned long)(c + 13));
  assert_non_null(strstr(out, want));
  free(out);
  arena_destroy(a);
}

/* Check mode: a freed block keeps its pages read-write for a while
 * (arena_protect.c).  An allocation on them needs no system call, but a
 * guard page that falls on them must still be made PROT_NONE; freed pages
 * become inaccessible before the EMU_CHECK_PROTECT_EVERY-th kernel after
 * the free, or before a kernel given a pointer into them. */
static void test_check_lazy_protect(void **state) {
  (void)state;
  uintptr_t base = TB(23);
  struct emu_arena *a = arena_create_ex("data", 0, base, 64 << 10, 256,
                                        ARENA_CHECK, 64 << 10);
  assert_non_null(a);
  char *x = arena_alloc(a, 8192); /* pages 1-2, guard 3 */
  assert_ptr_equal(x, (char *)base + 4096);
  assert_int_equal(arena_free(a, x), 0);
  assert_false(faults(x)); /* still read-write: no kernel ran */
  char *y = arena_alloc(a, 11 * 4096); /* pages 4-14, guard 15 */
  assert_ptr_equal(y, (char *)base + 4 * 4096);
  /* The range is full: the quarantined block's extent is reused, and the
   * new block's guard page (page 2) was part of the freed block. */
  char *z = arena_alloc(a, 4096);
  assert_ptr_equal(z, x);
  assert_false(faults(z));
  assert_true(faults(z + 4096));
  /* A block larger than EMU_CHECK_KEEP_MAX is given back at once. */
  assert_int_equal(arena_free(a, y), 0);
  assert_true(faults(y + 5 * 4096));
  assert_int_equal(arena_free(a, z), 0);
  assert_false(faults(z));
  for (int i = 1; i < EMU_CHECK_PROTECT_EVERY; i++)
    arena_settle(a);
  assert_false(faults(z));
  arena_settle(a);
  assert_true(faults(z));
  assert_true(faults(z + 4096));
  arena_destroy(a);
}

/* Check mode: freed blocks are protected together, joined across the
 * guard pages between them but never across a live block; a pointer to a
 * freed block copied to the device, or given to a kernel, protects it
 * before the next kernel. */
static void test_check_protect_runs(void **state) {
  (void)state;
  struct emu_arena *a = arena_create_ex("data", 0, TB(25), 4 * MB, 256,
                                        ARENA_CHECK, 64 * MB);
  char *b[5];
  for (int i = 0; i < 5; i++)
    b[i] = arena_alloc(a, 64);
  assert_int_equal(arena_free(a, b[0]), 0);
  assert_int_equal(arena_free(a, b[1]), 0);
  assert_int_equal(arena_free(a, b[3]), 0);
  for (int i = 0; i < EMU_CHECK_PROTECT_EVERY; i++)
    arena_settle(a);
  assert_true(faults(b[0]) && faults(b[1]) && faults(b[3]));
  assert_false(faults(b[2]));
  assert_false(faults(b[4]));
  /* B[2]'s address goes to the device: once freed, it is protected before
   * the next kernel. */
  uint64_t words[2] = {42, (uint64_t)(uintptr_t)(b[2] + 8)};
  arena_note_pointers(a, words, sizeof words, 0);
  assert_int_equal(arena_free(a, b[2]), 0);
  assert_false(faults(b[2]));
  arena_settle(a);
  assert_true(faults(b[2]));
  assert_false(faults(b[4]));
  /* A kernel given a pointer into freed B[4]. */
  assert_int_equal(arena_free(a, b[4]), 0);
  arena_settle(a);
  assert_false(faults(b[4]));
  arena_note_kernel(a, b[4] + 16, (void *)0x1234);
  assert_true(faults(b[4]));
  arena_destroy(a);
}

/* Check mode: a freed block whose address was copied into a live block
 * is protected before the next kernel only if that block still holds the
 * address then: not once the pointer was detached (overwritten) or its
 * block freed too; then after EMU_CHECK_PROTECT_EVERY kernels. */
static void test_check_exposed_holder(void **state) {
  (void)state;
  for (int how = 0; how < 4; how++) {
    struct emu_arena *a = arena_create_ex("data", 0, TB(25), 4 * MB, 256,
                                          ARENA_CHECK, 64 * MB);
    char *h = arena_alloc(a, 64), *p = arena_alloc(a, 64);
    /* The copy of a struct {long n; double *p;} attached to P. */
    uint64_t words[2] = {1, (uint64_t)(uintptr_t)p};
    assert_int_equal(arena_write_begin(a, h, sizeof words), 0);
    memcpy(h, words, sizeof words);
    arena_note_pointers(a, words, sizeof words, (uintptr_t)h);
    if (how == 1) { /* detached: a null pointer copied over it */
      uint64_t null = 0;
      memcpy(h + 8, &null, sizeof null);
      arena_note_pointers(a, &null, sizeof null, (uintptr_t)h + 8);
    }
    if (how == 3) /* copied again, to a place not known */
      arena_note_pointers(a, words, sizeof words, 0);
    assert_int_equal(arena_free(a, p), 0);
    if (how == 2) /* the struct unmapped after its member's pointee */
      assert_int_equal(arena_free(a, h), 0);
    if (how == 3) {
      arena_settle(a);
      assert_true(faults(p));
      arena_destroy(a);
      continue;
    }
    arena_settle(a);
    if (how == 0) {
      assert_true(faults(p)); /* H still points to it */
      arena_destroy(a);
      continue;
    }
    assert_false(faults(p));
    for (int i = 1; i < EMU_CHECK_PROTECT_EVERY; i++)
      arena_settle(a);
    assert_true(faults(p));
    arena_destroy(a);
  }
}

/* Check mode: a freed block whose known holder no longer holds its
 * address is still protected before the next kernel when another live
 * block (a kernel's or a device-to-device copy) or a range a kernel keeps
 * values in (an image's data: arena_reach_add) holds it; without either
 * it waits. */
static void test_check_exposed_elsewhere(void **state) {
  (void)state;
  static uint64_t image_data[8];
  for (int where = 0; where < 3; where++) {
    struct emu_arena *a = arena_create_ex("data", 0, TB(27), 4 * MB, 256,
                                          ARENA_CHECK, 64 * MB);
    char *h = arena_alloc(a, 64), *p = arena_alloc(a, 64);
    char *other = arena_alloc(a, 256);
    uint64_t w = (uint64_t)(uintptr_t)p + 8, null = 0;
    assert_int_equal(arena_write_begin(a, h, sizeof w), 0);
    memcpy(h, &w, sizeof w);
    arena_note_pointers(a, &w, sizeof w, (uintptr_t)h);
    /* Moved where no copy from the host tells, then the holder cleared. */
    memset(image_data, 0, sizeof image_data);
    if (where == 1) {
      assert_int_equal(arena_write_begin(a, other, 256), 0);
      memset(other, 0, 256);
      memcpy(other + 200, &w, sizeof w);
    }
    arena_reach_add(a, image_data, (uintptr_t)image_data, sizeof image_data);
    if (where == 2)
      image_data[5] = w;
    memcpy(h, &null, sizeof null);
    arena_note_pointers(a, &null, sizeof null, (uintptr_t)h);
    assert_int_equal(arena_free(a, p), 0);
    arena_settle(a);
    if (where == 0)
      assert_false(faults(p));
    else
      assert_true(faults(p));
    arena_reach_drop(a, image_data);
    arena_destroy(a);
  }
}

/* 1 if every page of [P, P+LEN) is in memory. */
static int resident(const void *p, size_t len) {
  unsigned char v[64];
  size_t pages = len / 4096;
  assert_true(pages <= sizeof v);
  assert_int_equal(mincore((void *)p, len, v), 0);
  for (size_t i = 0; i < pages; i++)
    if (!(v[i] & 1))
      return 0;
  return 1;
}

/* Check mode: a freed large block is inaccessible at once; the next block
 * of its length gets another address but the freed block's pages, moved
 * (arena_donor.c): in memory already, reading as the poison, never as
 * the freed block's bytes.  The freed range still faults. */
static void test_check_large_pages_moved(void **state) {
  (void)state;
  enum { LEN = 64 << 10 };
  struct emu_arena *a = arena_create_ex("data", 0, TB(26), 4 * MB, 256,
                                        ARENA_CHECK, 64 * MB);
  assert_non_null(a);
  char *x = arena_alloc(a, LEN);
  assert_int_equal(arena_write_begin(a, x, LEN), 0);
  memset(x, 0x11, LEN);
  assert_int_equal(arena_free(a, x), 0);
  assert_true(faults(x));
  char *y = arena_alloc(a, LEN);
  assert_ptr_not_equal(y, x);
  assert_true(faults(x));
  assert_true(faults(x + LEN - 1));
  if (!a->donors_off) /* mremap moved them (not under valgrind) */
    assert_true(resident(y, LEN));
  assert_int_equal(arena_read_begin(a, y, LEN), 0);
  for (size_t i = 0; i < LEN; i += 4096)
    assert_int_equal(((uint32_t *)(void *)y)[i / 4], EMU_CHECK_POISON_WORD);
  /* A block of another length gets fresh pages. */
  assert_int_equal(arena_free(a, y), 0);
  char *z = arena_alloc(a, 2 * LEN);
  assert_false(resident(z, 2 * LEN));
  assert_true(faults(y));
  arena_destroy(a);
}

/* Check mode: a block allocated on the kept pages of a freed block reads
 * as the poison, never as the old block's bytes, whether or not a kernel
 * ran in between, and when a kernel wrote the freed block before its
 * pages were protected (case 2). */
static void test_check_reuse_poisoned(void **state) {
  (void)state;
  for (int kernel = 0; kernel < 3; kernel++) {
    uintptr_t base = TB(24);
    struct emu_arena *a = arena_create_ex("data", 0, base, 64 << 10, 256,
                                          ARENA_CHECK, 64 << 10);
    assert_non_null(a);
    char *x = arena_alloc(a, 64);
    assert_int_equal(arena_write_begin(a, x, 64), 0);
    memset(x, 0x11, 64);
    if (kernel == 1)
      arena_settle(a);
    assert_int_equal(arena_free(a, x), 0);
    if (kernel == 2) {
      arena_settle(a);
      kernel_write(x - 16, 0x22, 80); /* a kernel's write after the free */
    }
    char *y = arena_alloc(a, 12 * 4096); /* pages 3-14: the rest */
    assert_non_null(y);
    uint32_t *z = arena_alloc(a, 64 + 16); /* on x's pages, not at x */
    assert_ptr_equal((char *)z, (char *)base + 8192 - 80);
    assert_int_equal(arena_read_begin(a, z, 80), 0);
    for (int i = 0; i < 20; i++)
      assert_int_equal(z[i], EMU_CHECK_POISON_WORD);
    arena_destroy(a);
  }
}

/* mprotect calls, counted (linked with -Wl,--wrap=mprotect). */
static unsigned long mprotects;
int __real_mprotect(void *p, size_t len, int prot);
int __wrap_mprotect(void *p, size_t len, int prot) {
  mprotects++;
  return __real_mprotect(p, len, prot);
}

/* Check mode: the quarantine gives freed blocks back
 * EMU_CHECK_RELEASE_BATCH at a time, after EMU_CHECK_QUARANTINE_MAX later
 * frees at least, or, for blocks that keep their pages, once they keep
 * EMU_CHECK_QUARANTINE_KEPT bytes (a block of 64 bytes keeps one page):
 * a launch loop reuses the pages of 256 blocks, not of 4 096.  With
 * guard markers, the first block allocated on them opens the whole batch
 * with one mprotect and the blocks after it, in the same layout, make
 * none, kernels or not; every guard page still faults. */
static void test_check_release_batch(void **state) {
  (void)state;
  enum {
    Q = EMU_CHECK_QUARANTINE_KEPT / 4096 < EMU_CHECK_QUARANTINE_MAX
            ? EMU_CHECK_QUARANTINE_KEPT / 4096
            : EMU_CHECK_QUARANTINE_MAX,
    B = EMU_CHECK_RELEASE_BATCH
  };
  assert_int_equal(Q, 256);
  struct emu_arena *a = arena_create_ex("data", 0, TB(28), 64 * MB, 256,
                                        ARENA_CHECK, 256 * MB);
  assert_non_null(a);
  char *first = NULL;
  /* A launch loop: allocate, run a kernel, free. */
  for (int i = 0; i < Q + B - 1; i++) {
    char *x = arena_alloc(a, 64);
    assert_non_null(x);
    if (!first)
      first = x;
    arena_settle(a);
    assert_int_equal(arena_free(a, x), 0);
  }
  /* Nothing given back yet: a new block takes fresh pages. */
  char *y = arena_alloc(a, 64);
  assert_true(y > first + (size_t)(Q + B - 2) * 8192);
  arena_settle(a);
  assert_int_equal(arena_free(a, y), 0); /* the B oldest go back */
  assert_true(faults(first));
  if (!a->marks) {
    fprintf(stderr, "# no guard markers (MADV_GUARD_INSTALL) here: "
            "the mprotect count is not checked\n");
    arena_destroy(a);
    return;
  }
  mprotects = 0;
  for (int i = 0; i < B; i++) {
    char *z = arena_alloc(a, 64);
    assert_ptr_equal(z, first + (size_t)i * 8192);
    assert_false(faults(z));
    assert_true(faults(z + 64));   /* the guard page after it */
    assert_true(faults(z - 4096)); /* the page before: a guard */
    if (i == 0) /* kernels meanwhile protect freed blocks, not these */
      for (int k = 0; k < EMU_CHECK_PROTECT_EVERY; k++)
        arena_settle(a);
  }
  /* One for the batch, one for the kernels' protection of the blocks
   * freed last (a run: one call). */
  assert_int_equal(mprotects, 2);
  arena_destroy(a);
}

/* Check mode: blocks freed in a shuffled order go into the page index of
 * freed ranges (arena_protect.c) and are found there all the same: a
 * block allocated on their pages reads the poison and keeps its guard, a
 * kernel given a pointer into one protects them all (the live ones stay
 * open), and so do EMU_CHECK_PROTECT_EVERY kernels. */
static void test_check_shuffled_frees(void **state) {
  (void)state;
  /* Each batch of frees is more than UNPROT_INSERT_SORT_MAX
   * (arena_protect.c): radix-sorted when they are protected, the second
   * batch with what the first left. */
  enum { N = 1500, K = 1100 };
  struct emu_arena *a = arena_create_ex("data", 0, TB(26), 64 * MB, 256,
                                        ARENA_CHECK, 64 * MB);
  assert_non_null(a);
  static char *b[N + K];
  for (int i = 0; i < N + K; i++) {
    b[i] = arena_alloc(a, 64);
    assert_non_null(b[i]);
  }
  uint64_t r = 88172645463325252ull;
  for (int i = N - 1; i > 0; i--) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    int j = (int)(r % (uint64_t)(i + 1));
    char *t = b[i];
    b[i] = b[j];
    b[j] = t;
  }
  for (int i = 0; i < N; i++) /* the last K stay live */
    assert_int_equal(arena_free(a, b[i]), 0);
  for (int i = 0; i < N; i++)
    assert_false(faults(b[i])); /* no kernel yet */
  /* The quarantine gave the oldest back: a new block on their pages reads
   * the poison and has its guard. */
  char *c = arena_alloc(a, 64);
  assert_non_null(c);
  assert_true(c < b[N]);
  assert_int_equal(arena_read_begin(a, c, 64), 0);
  assert_int_equal(((uint32_t *)c)[0], EMU_CHECK_POISON_WORD);
  assert_true(faults(c + 64));
  for (int i = N; i < N + K; i++)
    assert_int_equal(arena_free(a, b[i]), 0);
  /* A kernel given a pointer into a freed block. */
  char *probe = b[0] == c ? b[1] : b[0];
  arena_note_kernel(a, probe + 8, (void *)0x1234);
  for (int i = 0; i < N + K; i++)
    assert_true(b[i] == c || faults(b[i]));
  assert_false(faults(c));
  /* Freed again, and reused: the allocations cut their pages out of the
   * freed ranges. */
  assert_int_equal(arena_free(a, c), 0);
  for (int round = 0; round < 2; round++) {
    static char *d[N];
    for (int i = 0; i < N; i++) {
      d[i] = arena_alloc(a, 64);
      assert_non_null(d[i]);
      assert_int_equal(arena_read_begin(a, d[i], 64), 0);
      assert_int_equal(((uint32_t *)d[i])[0], EMU_CHECK_POISON_WORD);
      assert_true(faults(d[i] + 64));
    }
    for (int i = N - 1; i >= 0; i -= 2)
      assert_int_equal(arena_free(a, d[i]), 0);
    for (int i = N - 2; i >= 0; i -= 2)
      assert_int_equal(arena_free(a, d[i]), 0);
    assert_false(faults(d[N / 2]));
    for (int k = 0; k < EMU_CHECK_PROTECT_EVERY; k++)
      arena_settle(a);
    for (int i = 0; i < N; i++)
      assert_true(faults(d[i]));
  }
  arena_destroy(a);
}

/* Check mode: a kernel given a pointer into the last page of a freed
 * block of several pages, among freed blocks of one page, protects them
 * all: the freed ranges are found by the page where they start
 * (arena_protect.c), looking back as far as the longest of them. */
static void test_check_arg_in_long_range(void **state) {
  (void)state;
  struct emu_arena *a = arena_create_ex("data", 0, TB(32), 1 * MB, 256,
                                        ARENA_CHECK, 1 * MB);
  assert_non_null(a);
  char *small1 = arena_alloc(a, 64);
  char *big = arena_alloc(a, 4 * 4096); /* four pages and the guard */
  char *small2 = arena_alloc(a, 64);
  char *live = arena_alloc(a, 64);
  assert_non_null(small1);
  assert_non_null(big);
  assert_non_null(small2);
  assert_non_null(live);
  assert_int_equal(arena_free(a, small1), 0);
  assert_int_equal(arena_free(a, big), 0);
  assert_int_equal(arena_free(a, small2), 0);
  assert_false(faults(big + 3 * 4096)); /* no kernel yet */
  arena_note_kernel(a, big + 3 * 4096 + 100, (void *)0x1234);
  assert_true(faults(small1));
  assert_true(faults(big));
  assert_true(faults(big + 3 * 4096));
  assert_true(faults(small2));
  assert_false(faults(live));
  arena_destroy(a);
}

/* Check mode: freed ranges are protected sorted by address
 * (arena_protect.c, arena_unprot_flush): in place for a few, through a
 * radix sort for more.  Frees in any order give the same calls: runs of
 * freed blocks joined across their guard pages, split at a live block. */
static void test_check_waiting_flush(void **state) {
  (void)state;
  enum { N = 100, LIVE = 50 };
  struct emu_arena *a = arena_create_ex("data", 0, TB(30), 64 * MB, 256,
                                        ARENA_CHECK, 64 * MB);
  assert_non_null(a);
  static char *b[N];
  for (int i = 0; i < N; i++) {
    b[i] = arena_alloc(a, 64);
    assert_non_null(b[i]);
  }
  /* Ten, out of order: sorted in place. */
  static const int few[] = {9, 3, 7, 1, 5, 0, 8, 2, 6, 4};
  for (int i = 0; i < 10; i++)
    assert_int_equal(arena_free(a, b[few[i]]), 0);
  mprotects = 0;
  for (int k = 0; k < EMU_CHECK_PROTECT_EVERY; k++)
    arena_settle(a);
  for (int i = 0; i < 10; i++)
    assert_true(faults(b[i]));
  assert_false(faults(b[10]));
  if (a->marks)
    assert_int_equal(mprotects, 1); /* one run */
  /* The other 89 but LIVE, shuffled: radix-sorted. */
  int order[N - 11], n = 0;
  for (int i = 10; i < N; i++)
    if (i != LIVE)
      order[n++] = i;
  uint64_t r = 88172645463325252ull;
  for (int i = n - 1; i > 0; i--) {
    r ^= r << 13, r ^= r >> 7, r ^= r << 17;
    int j = (int)(r % (uint64_t)(i + 1));
    int t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (int i = 0; i < n; i++)
    assert_int_equal(arena_free(a, b[order[i]]), 0);
  assert_false(faults(b[order[0]])); /* no kernel yet */
  mprotects = 0;
  for (int k = 0; k < EMU_CHECK_PROTECT_EVERY; k++)
    arena_settle(a);
  for (int i = 0; i < N; i++)
    assert_true(i == LIVE ? !faults(b[i]) : faults(b[i]));
  if (a->marks)
    assert_int_equal(mprotects, 2); /* below LIVE, above it */
  arena_destroy(a);
}

/* Check mode with more live blocks than may have guard pages: the rest
 * lose their guard, nothing fails. */
static void test_check_many(void **state) {
  (void)state;
  enum { N = EMU_CHECK_GUARDED_MAX + 100 };
  const char *pre = getenv("LD_PRELOAD");
  if (pre && strstr(pre, "vgpreload")) {
    /* Valgrind tracks at most about 30 000 mappings (VG_N_SEGMENTS). */
    fprintf(stderr, "# under valgrind: too many mappings for it, not run\n");
    return;
  }
  struct emu_arena *a = arena_create_ex("data", 0, TB(21), 64 * MB, 256,
                                        ARENA_CHECK, 256 * MB);
  static char *blk[N];
  for (int i = 0; i < N; i++) {
    blk[i] = arena_alloc(a, 64);
    assert_non_null(blk[i]);
  }
  assert_true(faults(blk[0] + 64));
  assert_ptr_equal(blk[N - 1], blk[N - 2] + 4096); /* no guard between */
  /* Pages opened ahead of unguarded blocks are closed before a kernel. */
  arena_settle(a);
  assert_true(faults(blk[N - 1] + 64));
  assert_false(faults(blk[N - 1]));
  for (int i = 0; i < N; i++)
    assert_int_equal(arena_free(a, blk[i]), 0);
  arena_destroy(a);
}

static struct emu_arena *child_arena;
static char *child_block;

static void child_setup(void) {
  child_arena = check_arena_with_block(&child_block);
}

NO_ASAN static void read_past_end(void) {
  child_setup();
  static struct emu_devctx ctx = {.device = 2, .num_teams = 1,
                                  .thread_limit = 1, .entry = (void *)0x1234};
  emu_set_ctx(&ctx);
  (void)*(volatile double *)(child_block + 808);
}

NO_ASAN static void read_freed(void) {
  child_setup();
  arena_free(child_arena, child_block);
  /* What a kernel launch given the pointer does first. */
  arena_settle(child_arena);
  arena_note_kernel(child_arena, child_block, (void *)0x1234);
  (void)*(volatile char *)(child_block + 5);
}

NO_ASAN static void read_unallocated(void) {
  child_setup();
  (void)*(volatile char *)(TB(22) + 40 * MB);
}

/* The first byte that is not poison, found 128 bytes a step over the
 * slack before a block (poison.c): at every place of a page, for both
 * patterns, from aligned and unaligned starts. */
static void test_check_poison_first_diff(void **state) {
  (void)state;
  enum { N = 4096 + 64 };
  unsigned char *buf = aligned_alloc(64, N);
  assert_non_null(buf);
  static const size_t lens[] = {0, 1, 31, 127, 128, 129, 255, 256, 1000,
                                4080, 4096};
  for (int kind = EMU_POISON_DEFAULT; kind <= EMU_POISON_CHECK; kind++)
    for (size_t start = 0; start <= 12; start += 4)
      for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
        size_t len = lens[l];
        for (size_t pos = 0; pos <= len; pos += pos < 300 ? 1 : 97) {
          poison_fill(kind, buf, N);
          if (pos < len)
            buf[start + pos] ^= 0x10;
          assert_int_equal(poison_first_diff(kind, buf + start, len), pos);
        }
      }
  free(buf);
  /* Through the arena: a write a page's slack before a 13-byte block. */
  struct emu_arena *a = arena_create_ex("data", 0, TB(24), 4 * MB, 256,
                                        ARENA_CHECK, 64 * MB);
  assert_non_null(a);
  char *c = arena_alloc(a, 13);
  arena_settle(a);
  poke(c - 4000, 'x');
  struct capture cap;
  capture_begin(&cap);
  assert_int_equal(arena_free(a, c), 0);
  char *out = capture_end(&cap);
  assert_non_null(strstr(out, "of 13 bytes was written, up to 4000 bytes "
                              "before it; found when it was freed"));
  free(out);
  arena_destroy(a);
}

/* In check mode a device fault ends the process with the check status,
 * after one message naming the kernel and the block. */
static void test_fault_messages(void **state) {
  (void)state;
  int status = 0;
  char want[300];
  char *out = in_child(read_past_end, &status);
  assert_non_null(out);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 42);
  snprintf(want, sizeof want, "emu: error: device 2: kernel at "
           "0x0000000000001234: invalid read of device memory at 0x%016lx, "
           "8 bytes past the end of the live data block [0x%016lx, 0x%016lx) "
           "of 800 bytes", (unsigned long)TB(22) + 8192 + 8,
           (unsigned long)TB(22) + 8192 - 800, (unsigned long)TB(22) + 8192);
  if (!strstr(out, want))
    fprintf(stderr, "got: %s\nwant: %s\n", out, want);
  assert_non_null(strstr(out, want));
  free(out);
  out = in_child(read_freed, &status);
  assert_int_equal(WEXITSTATUS(status), 42);
  snprintf(want, sizeof want, "invalid read of device memory at 0x%016lx, "
           "inside the freed data block [0x%016lx, 0x%016lx) of 800 bytes, "
           "at offset 5", (unsigned long)TB(22) + 8192 - 800 + 5,
           (unsigned long)TB(22) + 8192 - 800, (unsigned long)TB(22) + 8192);
  assert_non_null(strstr(out, want));
  free(out);
  out = in_child(read_unallocated, &status);
  assert_int_equal(WEXITSTATUS(status), 42);
  assert_non_null(strstr(out, "in never-allocated device memory of the data "
                              "range"));
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check_layout),
      cmocka_unit_test(test_check_lazy_protect),
      cmocka_unit_test(test_check_reuse_poisoned),
      cmocka_unit_test(test_check_protect_runs),
      cmocka_unit_test(test_check_exposed_holder),
      cmocka_unit_test(test_check_exposed_elsewhere),
      cmocka_unit_test(test_check_large_pages_moved),
      cmocka_unit_test(test_check_many),
      cmocka_unit_test(test_check_shuffled_frees),
      cmocka_unit_test(test_check_waiting_flush),
      cmocka_unit_test(test_check_arg_in_long_range),
      cmocka_unit_test(test_check_release_batch),
      cmocka_unit_test(test_check_poison_first_diff),
      cmocka_unit_test(test_fault_messages),
  };
  return cmocka_run_group_tests_name("emu arena, check mode", tests, NULL, NULL);
}
