/* ompemu_first_word_in (wordscan.h): sixteen words per step in GNU C vectors,
 * with AVX2 where the CPU has it (GNU function multiversioning on x86-64),
 * then the step that holds a match word by word. */
#include "config.h"
#include "wordscan.h"

#include <string.h>

typedef uint64_t v4u64 __attribute__((vector_size(32)));
typedef int64_t v4i64 __attribute__((vector_size(32)));

/* W - LO < SPAN (unsigned) is (W - LO) ^ 2^63 < SPAN ^ 2^63 (signed), and
 * (W - LO) ^ 2^63 is W - (LO ^ 2^63): one subtraction and one signed
 * compare per vector (AVX2 has no unsigned one).  Sixteen words are
 * looked at between two tests of the result, which take a few
 * instructions to bring a vector's lanes together. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
size_t ompemu_first_word_in(const void *p, size_t words, uint64_t lo,
                            uint64_t span) {
  const unsigned char *c = p;
  const uint64_t sign = (uint64_t)1 << 63;
  const v4u64 vlo = {lo ^ sign, lo ^ sign, lo ^ sign, lo ^ sign};
  const v4i64 vlim = {(int64_t)(span ^ sign), (int64_t)(span ^ sign),
                      (int64_t)(span ^ sign), (int64_t)(span ^ sign)};
  size_t i = 0;
  for (; i + 16 <= words; i += 16) {
    v4u64 a, b, d, e;
    memcpy(&a, c + 8 * i, sizeof a);
    memcpy(&b, c + 8 * i + 32, sizeof b);
    memcpy(&d, c + 8 * i + 64, sizeof d);
    memcpy(&e, c + 8 * i + 96, sizeof e);
    v4i64 m = ((v4i64)(a - vlo) < vlim) | ((v4i64)(b - vlo) < vlim) |
              ((v4i64)(d - vlo) < vlim) | ((v4i64)(e - vlo) < vlim);
    if (m[0] | m[1] | m[2] | m[3])
      break;
  }
  if (i + 8 <= words) { /* eight words left, or sixteen holding a match */
    v4u64 a, b;
    memcpy(&a, c + 8 * i, sizeof a);
    memcpy(&b, c + 8 * i + 32, sizeof b);
    v4i64 m = ((v4i64)(a - vlo) < vlim) | ((v4i64)(b - vlo) < vlim);
    if (!(m[0] | m[1] | m[2] | m[3]))
      i += 8;
  }
  for (; i < words; i++) {
    uint64_t w;
    memcpy(&w, c + 8 * i, sizeof w);
    if (w - lo < span)
      return i;
  }
  return words;
}
