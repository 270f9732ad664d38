/* The checking mode (src/runtime/check.h) against the fake device: the
 * table of device blocks (lookups inside and at the start of blocks, a
 * block replacing a stale overlapping one, freed blocks), findings counted
 * once per distinct message, results thrown away (`to` data changed on the
 * device and dropped), an exit data `from` that an extra reference makes
 * copy nothing, `target update` of unmapped data, and the API checks of
 * every mode (omp_target_free twice, omp_target_memcpy with the device
 * numbers swapped).  The fake device has no poison and no aliases: those
 * are tested end to end in tests/check. */
#include "config.h"
#include "check.h"
#include "data_fake.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/omptarget.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double arr[16];
static const char *arr_name = ";arr;t.c;5;9;;";
static ident_t loc = {0, 2, 0, 0, ";/src/t.c;main;7;1;;"};

static int setup(void **state) {
  (void)state;
  fake_reset();
  for (int i = 0; i < 16; i++)
    arr[i] = i;
  return 0;
}

static unsigned long findings(void) { return check_findings(NULL); }

/* One data construct on ARR with map type TYPE. */
static int data(int kind, int64_t type) {
  void *base[1] = {arr}, *args[1] = {arr};
  int64_t sizes[1] = {sizeof arr}, types[1] = {type};
  const char *names[1] = {arr_name};
  switch (kind) {
  case 0:
    __tgt_target_data_begin_mapper(&loc, 0, 1, base, args, sizes, types,
                                   (void **)names, NULL);
    return 0;
  case 1:
    __tgt_target_data_end_mapper(&loc, 0, 1, base, args, sizes, types,
                                 (void **)names, NULL);
    return 0;
  default:
    __tgt_target_data_update_mapper(&loc, 0, 1, base, args, sizes, types,
                                    (void **)names, NULL);
    return 0;
  }
}

/* A target region that finds ARR mapped (tofrom, implicit). */
static int launch(void) {
  void *base[1] = {arr}, *args[1] = {arr};
  int64_t sizes[1] = {sizeof arr}, types[1] = {0x223};
  const char *names[1] = {arr_name};
  return __tgt_target_mapper(&loc, 0, &fake_kernel_host_id, 1, base, args,
                             sizes, types, (void **)names, NULL);
}

static void test_blocks(void **state) {
  (void)state;
  const int32_t dev = 7; /* a device the data path does not use */
  struct cblock *a = cb_add(dev, 0x10000, 0x100, CB_RAW);
  struct cblock *b = cb_add(dev, 0x20000, 0x40, CB_API);
  assert_non_null(a);
  assert_non_null(b);
  assert_ptr_equal(cb_find(dev, 0x10000), a);  /* a start: the hash */
  assert_ptr_equal(cb_find(dev, 0x100ff), a);  /* inside: the tree */
  assert_null(cb_find(dev, 0x10100));          /* just past the end */
  assert_ptr_equal(cb_find_range(dev, 0x10010, 0xf0), a);
  assert_null(cb_find_range(dev, 0x10010, 0xf1)); /* runs past the end */
  assert_ptr_equal(cb_find_any(0x20004), b);
  assert_null(cb_find(dev + 1, 0x20004));
  cb_free(a, "t.c:9");
  assert_null(cb_find(dev, 0x10080));
  struct cblock *f = cb_find_freed(dev, 0x10080);
  assert_non_null(f);
  assert_string_equal(f->freed_at, "t.c:9");
  assert_null(cb_find_freed(dev, 0x30000));
  /* A new block where a freed one was: the address is live again. */
  struct cblock *c = cb_add(dev, 0x10000, 0x80, CB_RAW);
  assert_ptr_equal(cb_find(dev, 0x10040), c);
  assert_null(cb_find_freed(dev, 0x10040));
  /* A block overlapping one whose free was not seen replaces it. */
  struct cblock *d = cb_add(dev, 0x20020, 0x40, CB_RAW);
  assert_ptr_equal(cb_find(dev, 0x20030), d);
  assert_null(cb_find(dev, 0x20000));
  cb_free(c, "t.c:10");
  cb_free(d, "t.c:11");
}

/* A pointer attached again and again at one place of a block (a launch
 * loop over a mapped pointer's section) is one link, to what it holds
 * now; detached, none. */
static void test_block_links(void **state) {
  (void)state;
  const int32_t dev = 7;
  struct cblock *h = cb_add(dev, 0x50000, 0x10, CB_RAW);
  assert_non_null(h);
  for (uintptr_t i = 0; i < 1000; i++)
    cb_link(h, 8, 0x60000 + i * 0x1000);
  assert_non_null(h->edges);
  assert_null(h->edges->next);
  assert_int_equal(h->edges->to, 0x60000 + 999 * 0x1000);
  cb_link(h, 0, 0x70000);
  assert_non_null(h->edges->next);
  cb_link(h, 8, 0); /* detached */
  assert_int_equal(h->edges->to, 0x70000);
  assert_null(h->edges->next);
  cb_link(h, 0, 0);
  assert_null(h->edges);
  cb_link(h, 8, 0x80000);
  cb_free(h, "t.c:12");
}

static int collect(struct cblock *b, void *arg) {
  uintptr_t *v = arg;
  if (b->dev == 8 && v[0] < 63)
    v[++v[0]] = b->tgt;
  return 0;
}

/* The table finds blocks by the 4 KiB bucket of their start: many blocks
 * in one bucket (packed, as a plugin without guard pages gives them),
 * blocks spanning buckets, ranges over many buckets. */
static void test_block_buckets(void **state) {
  (void)state;
  const int32_t dev = 8;
  const uintptr_t base = 0x40000000;
  struct cblock *s[16];
  static const int order[16] = {5, 0, 15, 9, 2, 12, 7, 1, 14, 3, 10, 6, 13, 4, 11, 8};
  for (int i = 0; i < 16; i++) /* 16 blocks of 0x40 and gaps of 0x40 */
    s[order[i]] = cb_add(dev, base + (uintptr_t)order[i] * 0x80, 0x40, CB_RAW);
  for (int i = 0; i < 16; i++) {
    uintptr_t a = base + (uintptr_t)i * 0x80;
    assert_ptr_equal(cb_find(dev, a), s[i]);
    assert_ptr_equal(cb_find(dev, a + 0x3f), s[i]);
    assert_null(cb_find(dev, a + 0x40)); /* the gap */
    assert_null(cb_find_range(dev, a + 0x20, 0x21));
  }
  /* 3 pages from the middle of a page; a block in its last bucket after
   * it; lookups past its first bucket find it. */
  uintptr_t big = base + 0x10800;
  struct cblock *g = cb_add(dev, big, 0x3000, CB_RAW);
  struct cblock *h = cb_add(dev, big + 0x3000, 0x10, CB_RAW);
  assert_ptr_equal(cb_find(dev, big + 0x1000), g);
  assert_ptr_equal(cb_find(dev, big + 0x2fff), g);
  assert_ptr_equal(cb_find_range(dev, big + 0x1ff0, 0x1010), g);
  assert_ptr_equal(cb_find(dev, big + 0x3008), h);
  assert_null(cb_find(dev, big - 1));
  assert_int_equal(cb_is_device_anchor(big - 0x100, big + 1), 1);
  assert_int_equal(cb_is_device_anchor(big - 0x100, big), 0);
  /* In address order, whatever the order of the buckets in the table. */
  uintptr_t v[64] = {0};
  cb_foreach(collect, v);
  assert_int_equal(v[0], 18);
  for (int i = 2; i <= 18; i++)
    assert_true(v[i - 1] < v[i]);
  /* A freed block's record is used again at once: its name stays. */
  cb_free(s[3], "t.c:20");
  struct cblock *n = cb_add(dev, base + 0x100000, 0x10, CB_RAW);
  assert_non_null(n);
  const struct cblock *f = cb_find_freed(dev, base + 3 * 0x80 + 8);
  assert_non_null(f);
  assert_int_equal(f->tgt, base + 3 * 0x80);
  assert_int_equal(f->size, 0x40);
  assert_string_equal(f->freed_at, "t.c:20");
  /* A block over a few buckets and over many (more than are looked at
   * one by one) replaces the blocks whose frees were not seen. */
  struct cblock *w = cb_add(dev, base + 0x80, 0x200, CB_RAW);
  assert_ptr_equal(cb_find(dev, base + 0x100), w);
  assert_ptr_equal(cb_find(dev, base), s[0]);
  assert_ptr_equal(cb_find(dev, base + 0x280), s[5]);
  struct cblock *all = cb_add(dev, base - 0x1000, 0x200000, CB_RAW);
  assert_ptr_equal(cb_find(dev, base + 0x100008), all);
  assert_ptr_equal(cb_find(dev, big + 0x3008), all);
  assert_ptr_equal(cb_find(dev, base + 0x780), all);
  memset(v, 0, sizeof v);
  cb_foreach(collect, v);
  assert_int_equal(v[0], 1);
  cb_free(all, "t.c:21");
  assert_null(cb_find(dev, base));
}

static void test_words_and_hash(void **state) {
  (void)state;
  char buf[128];
  assert_string_equal(check_maptype_words(0x23, 0, buf, sizeof buf), "tofrom");
  assert_string_equal(check_maptype_words(0x223, 0, buf, sizeof buf),
                      "implicit tofrom");
  assert_string_equal(check_maptype_words(0x05, 0, buf, sizeof buf),
                      "always, to");
  assert_string_equal(check_maptype_words(0x0, 1, buf, sizeof buf), "release");
  assert_string_equal(check_maptype_words(0x8, 1, buf, sizeof buf), "delete");
  assert_string_equal(check_var_words(arr_name, 0, 0, buf, sizeof buf),
                      "arr (declared at t.c:5)");
  assert_string_equal(check_var_words("g", 0, 0, buf, sizeof buf),
                      "declare target variable g");
  /* flang's order, and its "unknown" for data without a name */
  assert_string_equal(check_var_words(";/w/p.f90;e;6;24;;", 0, 0, buf,
                                      sizeof buf),
                      "e (declared at p.f90:6)");
  assert_string_equal(check_var_words(";/w/p.f90;unknown;6;24;;", 0x1000, 16,
                                      buf, sizeof buf),
                      "host [0x0000000000001000, 0x0000000000001010) "
                      "(declared at p.f90:6)");
  assert_string_equal(check_where(&loc), "t.c:7");
  assert_string_equal(
      check_where_kernel("__omp_offloading_fe00_510208__QQmain_l13"),
      "line 13 of the main program");
  assert_string_equal(check_where_kernel("__omp_offloading_10302_bd0f1_main_l42"),
                      "line 42 of main");
  assert_null(check_where_kernel("__omp_offloading_fe00_51_f_l0"));
  assert_null(check_where_kernel("__omp_offloading_fe00_51_f_l12x"));
  assert_null(check_where_kernel("kernel"));
  char nm[64];
  assert_string_equal(check_source_name("_QMmEscale", nm, sizeof nm), "scale");
  assert_string_equal(check_source_name("_QFsubEx", nm, sizeof nm), "x");
  assert_string_equal(check_source_name("_QPsaxpy", nm, sizeof nm), "saxpy");
  assert_string_equal(check_source_name("_QCblk", nm, sizeof nm), "/blk/");
  assert_string_equal(check_source_name("scale", nm, sizeof nm), "scale");
  char x[100] = {0}, y[100] = {0};
  assert_true(check_hash(x, sizeof x) == check_hash(y, sizeof y));
  y[99] = 1;
  assert_true(check_hash(x, sizeof x) != check_hash(y, sizeof y));
  assert_true(check_hash(x, 99) != check_hash(x, 100));
  assert_true(check_hash("", 0) != 0);
}

/* N words of doubles between 1.0 and 2.0, none an address in the ranges
 * the pass tests look for; and the three offsets into them the tests
 * read from (aligned, odd, one word in). */
static void fill_doubles(uint64_t *src, size_t n) {
  for (size_t i = 0; i < n; i++)
    src[i] = 0x3ff0000000000000ull + i * 0x9e3779b97f4a7c15ull % 4096;
}
static const size_t shifts[3] = {0, 1, 8};

/* check_pass: the hash check_hash gives, the copy, and a clean prefix
 * that ends at or before the first word in the range, in whole 64-byte
 * chunks, 0 for a source that is not 8-aligned. */
static void test_pass(void **state) {
  (void)state;
  static uint64_t src[600], dst[600];
  const uint64_t lo = 0x10000, span = 0x7fffffff0000;
  fill_doubles(src, 600);
  const size_t sizes[] = {0, 1, 8, 63, 64, 65, 127, 128, 1000, 1024, 1088,
                          2048, 4096, 4100};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    size_t n = sizes[s];
    for (size_t k = 0; k < 3; k++) {
      const size_t shift = shifts[k];
      const unsigned char *p = (const unsigned char *)src + shift;
      size_t clean = 12345;
      memset(dst, 0, sizeof dst);
      assert_true(check_pass(dst, p, n, lo, span, &clean) == check_hash(p, n));
      if (n)
        assert_memory_equal(dst, p, n);
      if (shift % 8)
        assert_int_equal(clean, 0);
      else
        assert_int_equal(clean, n / 64 * 64); /* no word in the range */
      assert_true(check_pass(NULL, p, n, lo, span, NULL) == check_hash(p, n));
    }
  }
  /* A word in the range: the clean prefix stops at a KiB before it. */
  for (size_t hit = 0; hit < 512; hit += 37) {
    uint64_t keep = src[hit];
    src[hit] = lo + 8;
    size_t clean = 12345;
    check_pass(NULL, src, 4096, lo, span, &clean);
    assert_true(clean <= hit * 8 && clean % 1024 == 0);
    assert_true(clean + 1024 > hit * 8);
    src[hit] = keep;
  }
}

/* check_pass_small: the hash check_copy_hash gives (check_hash's from
 * HASH_SMALL bytes on), the copy, and the clean prefix exactly up to the
 * first word in the range (ompemu_first_word_in's count), 0 for a source
 * that is not 8-aligned; every byte counts in the hash. */
static void test_pass_small(void **state) {
  (void)state;
  static uint64_t src[40], dst[40];
  const uint64_t lo = 0x10000, span = 0x7fffffff0000;
  fill_doubles(src, 40);
  for (size_t n = 0; n < HASH_SMALL; n++)
    for (size_t k = 0; k < 3; k++) {
      const size_t shift = shifts[k];
      unsigned char *p = (unsigned char *)src + shift;
      size_t clean = 12345;
      memset(dst, 0, sizeof dst);
      uint64_t h = check_pass_small(dst, p, n, lo, span, &clean);
      assert_true(h == check_copy_hash(p, n) && h != 0);
      assert_true(check_pass_small(NULL, p, n, lo, span, NULL) == h);
      if (n)
        assert_memory_equal(dst, p, n);
      assert_int_equal(clean, shift % 8 ? 0 : n / 8 * 8);
      for (size_t b = 0; b < n; b++) {
        p[b] ^= 0x40;
        assert_true(check_copy_hash(p, n) != h);
        p[b] ^= 0x40;
      }
    }
  for (size_t hit = 0; hit < HASH_SMALL / 8; hit++) {
    uint64_t keep = src[hit];
    src[hit] = lo + 8;
    size_t clean = 12345;
    check_pass_small(NULL, src, HASH_SMALL - 1, lo, span, &clean);
    assert_int_equal(clean, hit * 8);
    src[hit] = keep;
  }
  const size_t big[] = {HASH_SMALL, 200, sizeof src};
  for (size_t i = 0; i < 3; i++)
    assert_true(check_copy_hash(src, big[i]) == check_hash(src, big[i]));
}

/* A copy of the whole block back to the host makes its expected bytes
 * the device's: an exit that removes it then compares nothing; but not
 * past a kernel (what it changed is a result thrown away). */
static void test_copied_back(void **state) {
  (void)state;
  unsigned long n = findings();
  int host = omp_get_initial_device();
  data(0, 0x01); /* to */
  assert_int_equal(launch(), 0);
  double *d = dev_addr(arr);
  d[3] = 99;
  assert_int_equal(omp_target_memcpy(arr, d, sizeof arr, 0, 0, host, 0), 0);
  assert_true(arr[3] == 99);
  data(1, 0x00); /* release: the bytes came back, nothing is lost */
  assert_int_equal(findings(), n);
  data(0, 0x01);
  assert_int_equal(launch(), 0);
  d = dev_addr(arr);
  d[3] = 98;
  assert_int_equal(omp_target_memcpy(arr, d, sizeof arr, 0, 0, host, 0), 0);
  assert_int_equal(launch(), 0);
  d[4] = 97; /* what the second kernel did */
  data(1, 0x00);
  assert_int_equal(findings(), n + 1);
}

/* A finding is counted once per distinct message. */
static void test_findings_once(void **state) {
  (void)state;
  unsigned long n = findings(), rep0, rep1;
  check_findings(&rep0);
  check_finding("test finding %d", 1);
  check_finding("test finding %d", 1);
  check_finding("test finding %d", 2);
  assert_int_equal(findings(), n + 2);
  check_findings(&rep1);
  assert_int_equal(rep1, rep0 + 1);
}

/* target data map(to:), a kernel, the device copy changed, the region's
 * end removes the mapping without copying back: a result thrown away. */
static void test_to_thrown_away(void **state) {
  (void)state;
  unsigned long n = findings();
  data(0, 0x01); /* to */
  assert_int_equal(launch(), 0);
  double *d = dev_addr(arr);
  assert_non_null(d);
  d[3] = 99; /* what the kernel did */
  data(1, 0x01);
  assert_int_equal(findings(), n + 1);
  assert_true(arr[3] == 3); /* nothing came back */
  /* The same with tofrom: copied back, no finding. */
  data(0, 0x03);
  assert_int_equal(launch(), 0);
  ((double *)dev_addr(arr))[4] = 98;
  data(1, 0x03);
  assert_int_equal(findings(), n + 1);
  assert_true(arr[4] == 98);
}

/* Two enter data, a change on the device, exit data map(from:): the
 * mapping keeps a reference and nothing is copied. */
static void test_extra_reference(void **state) {
  (void)state;
  unsigned long n = findings();
  data(0, 0x01);
  data(0, 0x01);
  ((double *)dev_addr(arr))[5] = 97;
  data(1, 0x02); /* from: copies nothing, count 1 left: pending */
  assert_int_equal(findings(), n);
  assert_true(arr[5] == 5);
  data(1, 0x02); /* the last reference: copied back, so no finding */
  assert_true(arr[5] == 97);
  assert_int_equal(findings(), n);
  assert_null(dev_addr(arr));
  /* the same, but the last exit deletes: the results are lost */
  data(0, 0x01);
  data(0, 0x01);
  ((double *)dev_addr(arr))[6] = 98;
  data(1, 0x02);
  assert_int_equal(findings(), n);
  data(1, 0x08); /* delete */
  assert_true(arr[6] != 98);
  assert_int_equal(findings(), n + 1);
  assert_null(dev_addr(arr));
}

static void test_update_unmapped(void **state) {
  (void)state;
  unsigned long n = findings();
  data(2, 0x02); /* target update from: not mapped */
  assert_int_equal(findings(), n + 1);
  data(0, 0x01);
  data(2, 0x02); /* mapped now: no finding */
  data(1, 0x00);
  assert_int_equal(findings(), n + 1);
}

/* In every mode: the second omp_target_free is refused before the plugin
 * sees it; omp_target_memcpy with the device numbers swapped copies
 * nothing. */
static void test_api(void **state) {
  (void)state;
  int dev = 0, host = omp_get_initial_device();
  unsigned long errors = ompemu_error_count();
  double *p = omp_target_alloc(sizeof arr, dev);
  assert_non_null(p);
  assert_int_equal(omp_target_memcpy(p, arr, sizeof arr, 0, 0, dev, host), 0);
  double back[16] = {0};
  assert_int_not_equal(
      omp_target_memcpy(back, p, sizeof back, 0, 0, dev, host), 0);
  assert_true(back[7] == 0);
  assert_int_equal(ompemu_error_count(), errors + 1);
  assert_int_equal(omp_target_memcpy(back, p, sizeof back, 0, 0, host, dev), 0);
  assert_true(back[7] == 7);
  int frees = fake_frees;
  omp_target_free(p, dev);
  assert_int_equal(fake_frees, frees + 1);
  omp_target_free(p, dev);
  assert_int_equal(fake_frees, frees + 1); /* the plugin was not asked */
  assert_int_equal(ompemu_error_count(), errors + 2);
}

/* check_lock: the thread that took it first takes it without the mutex
 * (the tests above ran on this thread); a second thread, started while
 * it counts, ends that at once and for all, and no increment is lost;
 * while a thread holds it, check_lock_try elsewhere fails; a holder can
 * wait on a condition variable with it. */
enum { LOCK_ROUNDS = 200000 };
static volatile unsigned long locked_count;

static void count_under_lock(void) {
  check_lock_take();
  unsigned long v = locked_count;
  for (volatile int spin = 0; spin < 50; spin++)
    ;
  locked_count = v + 1;
  check_lock_give();
}

static void *lock_other(void *arg) {
  (void)arg;
  for (int i = 0; i < LOCK_ROUNDS; i++)
    count_under_lock();
  return NULL;
}

static void *lock_try_other(void *arg) {
  (void)arg;
  int rc = check_lock_try();
  if (rc == 0)
    check_lock_give();
  return (void *)(intptr_t)rc;
}

static void test_lock(void **state) {
  (void)state;
  pthread_t t;
  void *rc;
  locked_count = 0;
  for (int i = 0; i < LOCK_ROUNDS; i++) {
    if (i == LOCK_ROUNDS / 100)
      assert_int_equal(pthread_create(&t, NULL, lock_other, NULL), 0);
    count_under_lock();
  }
  assert_int_equal(pthread_join(t, NULL), 0);
  assert_int_equal(locked_count, 2 * LOCK_ROUNDS);
  check_lock_take();
  assert_int_equal(pthread_create(&t, NULL, lock_try_other, NULL), 0);
  assert_int_equal(pthread_join(t, &rc), 0);
  assert_int_equal((intptr_t)rc, EBUSY);
  check_lock_give();
  /* The mutex now, for everyone: a timed wait works with it. */
  pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  check_lock_take();
  check_lock_mutex();
  assert_int_equal(pthread_cond_timedwait(&cv, &check_lock.mutex, &until),
                   ETIMEDOUT);
  check_lock_give();
  assert_int_equal(pthread_create(&t, NULL, lock_try_other, NULL), 0);
  assert_int_equal(pthread_join(t, &rc), 0);
  assert_int_equal((intptr_t)rc, 0);
}

int main(void) {
  /* The observer with its report; the checks on by hand (obs_check_setup
   * with OMPEMU_CHECK would end this process with status 99). */
  setenv("OMPEMU_REPORT", "1", 1);
  obs_check_setup();
  check_cfg.check = 1;
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blocks),
      cmocka_unit_test(test_block_links),
      cmocka_unit_test(test_block_buckets),
      cmocka_unit_test(test_words_and_hash),
      cmocka_unit_test(test_pass),
      cmocka_unit_test(test_pass_small),
      cmocka_unit_test(test_findings_once),
      cmocka_unit_test_setup(test_copied_back, setup),
      cmocka_unit_test_setup(test_to_thrown_away, setup),
      cmocka_unit_test_setup(test_extra_reference, setup),
      cmocka_unit_test_setup(test_update_unmapped, setup),
      cmocka_unit_test_setup(test_api, setup),
      cmocka_unit_test(test_lock),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
