/* ompemu_first_word_in (wordscan.h): eight words per step in GNU C vectors,
 * with AVX2 where the CPU has it (GNU function multiversioning on x86-64),
 * then the step that holds a match word by word. */
#include "config.h"
#include "wordscan.h"

#include <string.h>

typedef uint64_t v4u64 __attribute__((vector_size(32)));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
size_t ompemu_first_word_in(const void *p, size_t words, uint64_t lo,
                            uint64_t span) {
  const unsigned char *c = p;
  const v4u64 vlo = {lo, lo, lo, lo}, vspan = {span, span, span, span};
  size_t i = 0;
  for (; i + 8 <= words; i += 8) {
    v4u64 a, b;
    memcpy(&a, c + 8 * i, sizeof a);
    memcpy(&b, c + 8 * i + 32, sizeof b);
    v4u64 m = (v4u64)((a - vlo) < vspan) | (v4u64)((b - vlo) < vspan);
    if (m[0] | m[1] | m[2] | m[3])
      break;
  }
  for (; i < words; i++) {
    uint64_t w;
    memcpy(&w, c + 8 * i, sizeof w);
    if (w - lo < span)
      return i;
  }
  return words;
}
