/* Copies and fills of device memory (fastmem.h).  A launch with a 4 KiB
 * tofrom map moves 12 KiB on the launching thread: the copy to the device,
 * the copy back, the poison of the freed block.  Measured on the 2-vCPU
 * AMD EPYC VM of tests/bench/PROFILE.md, glibc 2.36's memcpy takes 28-71 ns
 * for 4 KiB in L1 (depending on how source and destination lie in their
 * pages: it copies backwards to dodge 4 KiB aliasing) and memset 27 ns
 * (rep stosb); a loop of four unaligned 64-byte (or 32-byte) loads and
 * stores takes 17-26 ns and 15 ns.  From about 64 KiB on, past the first
 * level cache, the C library is as fast or faster (prefetching,
 * non-temporal stores), so it keeps those sizes, and the small ones. */
#include "config.h"
#include "fastmem.h"

#include <string.h>
#include <wchar.h>

/* Sizes in [VEC_MIN, COPY_MAX] (copies) or [VEC_MIN, FILL_MAX] (fills) take
 * the vector loops. */
#define VEC_MIN ((size_t)256)
#define COPY_MAX ((size_t)32 << 10)
#define FILL_MAX ((size_t)64 << 10)

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define HAVE_VEC 1

/* 0 not known yet, 1 neither, 2 AVX2, 3 AVX-512F (relaxed atomic). */
static int level;

static int detect(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") ? 3
         : __builtin_cpu_supports("avx2")  ? 2
                                           : 1;
}

static int cpu_level(void) {
  int l = __atomic_load_n(&level, __ATOMIC_RELAXED);
  if (l)
    return l;
  l = detect();
  __atomic_store_n(&level, l, __ATOMIC_RELAXED);
  return l;
}

/* Four vectors from S + I to D + I. */
__attribute__((target("avx512f"), always_inline)) static inline void
move4x64(char *d, const char *s, size_t i) {
  __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64),
          c = _mm512_loadu_si512(s + i + 128),
          e = _mm512_loadu_si512(s + i + 192);
  _mm512_storeu_si512(d + i, a);
  _mm512_storeu_si512(d + i + 64, b);
  _mm512_storeu_si512(d + i + 128, c);
  _mm512_storeu_si512(d + i + 192, e);
}

__attribute__((target("avx2"), always_inline)) static inline void
move4x32(char *d, const char *s, size_t i) {
  __m256i a = _mm256_loadu_si256((const __m256i *)(s + i)),
          b = _mm256_loadu_si256((const __m256i *)(s + i + 32)),
          c = _mm256_loadu_si256((const __m256i *)(s + i + 64)),
          e = _mm256_loadu_si256((const __m256i *)(s + i + 96));
  _mm256_storeu_si256((__m256i *)(d + i), a);
  _mm256_storeu_si256((__m256i *)(d + i + 32), b);
  _mm256_storeu_si256((__m256i *)(d + i + 64), c);
  _mm256_storeu_si256((__m256i *)(d + i + 96), e);
}

/* Four vectors at a time, then the last 4 * VEC bytes, overlapping what
 * the loop copied (N >= 4 * VEC).  One branch per turn of the loop (a
 * loop that tested for the tail inside took 10 ns more per 4 KiB launch,
 * two copies). */
__attribute__((target("avx512f"))) static void copy512(char *d, const char *s,
                                                       size_t n) {
  size_t last = n - 256;
  for (size_t i = 0; i < last; i += 256)
    move4x64(d, s, i);
  move4x64(d, s, last);
}

__attribute__((target("avx2"))) static void copy256(char *d, const char *s,
                                                    size_t n) {
  size_t last = n - 128;
  for (size_t i = 0; i < last; i += 128)
    move4x32(d, s, i);
  move4x32(d, s, last);
}

/* Whole vectors of W from P; returns the bytes stored (a multiple of 64 or
 * 32, so the pattern's phase holds for what follows). */
__attribute__((target("avx512f"))) static size_t fill512(char *p, uint32_t w,
                                                         size_t n) {
  __m512i v = _mm512_set1_epi32((int)w);
  size_t i = 0;
  for (; i + 256 <= n; i += 256) {
    _mm512_storeu_si512(p + i, v);
    _mm512_storeu_si512(p + i + 64, v);
    _mm512_storeu_si512(p + i + 128, v);
    _mm512_storeu_si512(p + i + 192, v);
  }
  for (; i + 64 <= n; i += 64)
    _mm512_storeu_si512(p + i, v);
  return i;
}

__attribute__((target("avx2"))) static size_t fill256(char *p, uint32_t w,
                                                      size_t n) {
  __m256i v = _mm256_set1_epi32((int)w);
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    _mm256_storeu_si256((__m256i *)(p + i), v);
    _mm256_storeu_si256((__m256i *)(p + i + 32), v);
    _mm256_storeu_si256((__m256i *)(p + i + 64), v);
    _mm256_storeu_si256((__m256i *)(p + i + 96), v);
  }
  for (; i + 32 <= n; i += 32)
    _mm256_storeu_si256((__m256i *)(p + i), v);
  return i;
}
#else
#define HAVE_VEC 0
#endif

int emu_fastmem_limit(int l) {
#if HAVE_VEC
  int have = detect();
  __atomic_store_n(&level, l <= 0 || l > have ? have : l, __ATOMIC_RELAXED);
  return cpu_level();
#else
  (void)l;
  return 1;
#endif
}

void emu_copy(void *dst, const void *src, size_t n) {
  char *d = dst;
  const char *s = src;
  if (d < s + n && s < d + n) {
    memmove(d, s, n);
    return;
  }
#if HAVE_VEC
  if (n >= VEC_MIN && n <= COPY_MAX) {
    int l = cpu_level();
    if (l == 3) {
      copy512(d, s, n);
      return;
    }
    if (l == 2) {
      copy256(d, s, n);
      return;
    }
  }
#endif
  memcpy(d, s, n);
}

void emu_fill32(void *p, uint32_t w, size_t n) {
  unsigned char *c = p;
  unsigned char b = (unsigned char)w;
  size_t i = 0;
#if HAVE_VEC
  if (n >= VEC_MIN && n <= FILL_MAX) {
    int l = cpu_level();
    if (l == 3)
      i = fill512((char *)c, w, n);
    else if (l == 2)
      i = fill256((char *)c, w, n);
  }
#endif
  if (i == 0 && w == 0x01010101u * b) {
    memset(c, b, n);
    return;
  }
  /* The rest; from an aligned address, whole words with the C library's
   * wmemset (wchar_t is 32 bits here). */
  if (sizeof(wchar_t) == 4 && ((uintptr_t)(c + i) & 3) == 0 && n - i >= 64) {
    wmemset((wchar_t *)(void *)(c + i), (wchar_t)w, (n - i) / 4);
    i += (n - i) / 4 * 4;
  }
  for (; i + 4 <= n; i += 4)
    memcpy(c + i, &w, 4);
  for (size_t k = 0; i < n; i++, k++)
    c[i] = (unsigned char)(w >> (8 * k));
}
