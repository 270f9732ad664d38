/* ompemu_first_word_in (src/common/wordscan.h): the first 8-byte word in a
 * range of values, at every position of a buffer, at any alignment, at the
 * range's bounds, and none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "wordscan.h"

enum { WORDS = 40 };
static const uint64_t LO = 0x10000, SPAN = 0x7fffffff0000;

static void put(unsigned char *buf, size_t i, uint64_t w) {
  memcpy(buf + 8 * i, &w, sizeof w);
}

/* One match at each index (before, inside and after the vector steps),
 * at each byte offset of the buffer. */
static void test_each_position(void **state) {
  (void)state;
  unsigned char raw[8 * WORDS + 8];
  for (size_t shift = 0; shift < 8; shift++) {
    unsigned char *buf = raw + shift;
    for (size_t hit = 0; hit < WORDS; hit++) {
      for (size_t i = 0; i < WORDS; i++)
        put(buf, i, i % 2 ? 0x3ff0000000000000ull : 7); /* 1.0, small */
      put(buf, hit, LO + 8 * hit);
      assert_int_equal(ompemu_first_word_in(buf, WORDS, LO, SPAN), hit);
      /* A later match does not hide an earlier one. */
      put(buf, WORDS - 1, LO);
      assert_int_equal(ompemu_first_word_in(buf, WORDS, LO, SPAN), hit);
    }
  }
}

static void test_bounds(void **state) {
  (void)state;
  uint64_t w[WORDS] = {0};
  w[3] = LO - 1;     /* just below */
  w[11] = LO + SPAN; /* just past the end */
  assert_int_equal(ompemu_first_word_in(w, WORDS, LO, SPAN), WORDS);
  w[20] = LO + SPAN - 1; /* the last value in range */
  assert_int_equal(ompemu_first_word_in(w, WORDS, LO, SPAN), 20);
  w[9] = LO; /* the first */
  assert_int_equal(ompemu_first_word_in(w, WORDS, LO, SPAN), 9);
  /* Fewer words than one vector step; none at all. */
  assert_int_equal(ompemu_first_word_in(w + 9, 1, LO, SPAN), 0);
  assert_int_equal(ompemu_first_word_in(w, 5, LO, SPAN), 5);
  assert_int_equal(ompemu_first_word_in(w, 0, LO, SPAN), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_each_position),
      cmocka_unit_test(test_bounds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
