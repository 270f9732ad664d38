/* emu_copy and emu_fill32 (src/plugins/emu/fastmem.h): every byte of the
 * range and none outside it, for the sizes around each loop's steps and
 * the thresholds between the vector loops and the C library, at several
 * alignments; overlapping copies as memmove; the fill's pattern phase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fastmem.h"

enum { GUARD = 64, MAXN = 70000 };

/* Every size from 0 to 300 (the C library below VEC_MIN = 256, each step of
 * the 64- and 32-byte loops and their overlapping tails above it), then the
 * sizes around the later steps and thresholds: 32 KiB (COPY_MAX) and 64 KiB
 * (FILL_MAX) and one past each. */
enum { DENSE = 301 };
static const size_t sparse[] = {383,  384,   511,   512,   513,   1000,
                                4095, 4096,  4097,  4160,  8191,  32767,
                                32768, 32769, 65535, 65536, 65537, MAXN};
enum { NSIZES = DENSE + sizeof sparse / sizeof *sparse };

static size_t size_at(size_t k) { return k < DENSE ? k : sparse[k - DENSE]; }

/* Buffers of exactly N bytes, so that ASan and valgrind see a store past
 * the guard bytes too. */
static unsigned char *buffer(size_t n) {
  unsigned char *b = malloc(n);
  assert_non_null(b);
  return b;
}

/* Source bytes that differ at every position (no period of 4 or 64). */
static void pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(i * 131 + i / 251 + seed);
}

static void test_copy(void **state) {
  (void)state;
  static const size_t offs[] = {0, 1, 7, 16, 33, 63};
  for (size_t k = 0; k < NSIZES; k++) {
    size_t n = size_at(k), cap = n + 2 * GUARD + 64;
    unsigned char *src = buffer(cap), *dst = buffer(cap), *want = buffer(cap);
    for (size_t so = 0; so < 6; so++) {
      for (size_t dof = 0; dof < 6; dof++) {
        pattern(src, cap, (unsigned)(n + so));
        memset(dst, 0x5a, cap);
        memcpy(want, dst, cap);
        unsigned char *d = dst + GUARD + offs[dof];
        const unsigned char *s = src + GUARD + offs[so];
        memcpy(want + GUARD + offs[dof], s, n);
        emu_copy(d, s, n);
        if (memcmp(dst, want, cap) != 0)
          fail_msg("emu_copy of %zu bytes (source offset %zu, destination "
                   "offset %zu) differs from memcpy", n, offs[so], offs[dof]);
      }
    }
    free(src);
    free(dst);
    free(want);
  }
}

/* Overlapping ranges, either way round, are moved as memmove moves them. */
static void test_copy_overlap(void **state) {
  (void)state;
  static const size_t ns[] = {64, 256, 300, 4096, 5000};
  static const ptrdiff_t shifts[] = {-300, -64, -1, 1, 17, 64, 300};
  size_t cap = 5000 + 2 * 400;
  unsigned char *buf = buffer(cap), *want = buffer(cap);
  for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
    for (size_t j = 0; j < sizeof shifts / sizeof *shifts; j++) {
      pattern(buf, cap, (unsigned)k);
      memcpy(want, buf, cap);
      unsigned char *s = buf + 400, *d = s + shifts[j];
      memmove(want + 400 + shifts[j], want + 400, ns[k]);
      emu_copy(d, s, ns[k]);
      if (memcmp(buf, want, cap) != 0)
        fail_msg("overlapping emu_copy of %zu bytes, shift %td, differs from "
                 "memmove", ns[k], shifts[j]);
    }
  }
  free(buf);
  free(want);
}

static void test_fill(void **state) {
  (void)state;
  static const uint32_t words[] = {0xA5A5A5A5u, 0x00000000u, 0xFFF5A5A5u,
                                   0x04030201u};
  /* Every remainder modulo 4 (the whole-word tail) and 64 (the vectors). */
  static const size_t offs[] = {0, 1, 2, 3, 4, 13, 60};
  for (size_t k = 0; k < NSIZES; k++) {
    size_t n = size_at(k), cap = n + 2 * GUARD + 64;
    unsigned char *buf = buffer(cap), *want = buffer(cap);
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
      for (size_t o = 0; o < sizeof offs / sizeof *offs; o++) {
        pattern(buf, cap, (unsigned)n);
        memcpy(want, buf, cap);
        unsigned char *p = buf + GUARD + offs[o];
        for (size_t i = 0; i < n; i++)
          want[GUARD + offs[o] + i] = (unsigned char)(words[w] >> (8 * (i % 4)));
        emu_fill32(p, words[w], n);
        if (memcmp(buf, want, cap) != 0)
          fail_msg("emu_fill32(0x%08x) of %zu bytes at offset %zu: wrong bytes",
                   (unsigned)words[w], n, offs[o]);
      }
    }
    free(buf);
    free(want);
  }
}

/* Each test runs with each level of loops the processor has: the C
 * library alone, AVX2, AVX-512F. */
static int limit_1(void **state) {
  (void)state;
  return emu_fastmem_limit(1) == 1 ? 0 : -1;
}

static int limit_2(void **state) {
  (void)state;
  if (emu_fastmem_limit(2) != 2)
    print_message("no AVX2 here: the C library's loops again\n");
  return 0;
}

static int limit_3(void **state) {
  (void)state;
  if (emu_fastmem_limit(3) != 3)
    print_message("no AVX-512F here: a lower level's loops again\n");
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_copy, limit_1),
      cmocka_unit_test_setup(test_copy_overlap, limit_1),
      cmocka_unit_test_setup(test_fill, limit_1),
      cmocka_unit_test_setup(test_copy, limit_2),
      cmocka_unit_test_setup(test_copy_overlap, limit_2),
      cmocka_unit_test_setup(test_fill, limit_2),
      cmocka_unit_test_setup(test_copy, limit_3),
      cmocka_unit_test_setup(test_copy_overlap, limit_3),
      cmocka_unit_test_setup(test_fill, limit_3),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
