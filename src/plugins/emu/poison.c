/* Poison patterns (poison.h) and the AddressSanitizer hooks: ASan's
 * __asan_poison_memory_region / __asan_unpoison_memory_region are looked up
 * with dlsym(RTLD_DEFAULT) the first time, so the plugin needs no ASan
 * runtime of its own and costs nothing without one. */
#include "config.h"
#include "poison.h"
#include "fastmem.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

/* The canary checks read bytes that ASan was told are off limits. */
#if defined(__SANITIZE_ADDRESS__)
#define NO_ASAN __attribute__((no_sanitize_address))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_ASAN __attribute__((no_sanitize_address))
#endif
#endif
#ifndef NO_ASAN
#define NO_ASAN
#endif

static unsigned char check_byte(uintptr_t addr) {
  return (unsigned char)(EMU_CHECK_POISON_WORD >> (8 * (addr & 3)));
}

void poison_fill(enum emu_poison_kind kind, void *p, size_t n) {
  if (kind == EMU_POISON_DEFAULT) {
    emu_fill32(p, 0x01010101u * EMU_POISON_BYTE, n);
    return;
  }
  unsigned char *c = p;
  while (n && ((uintptr_t)c & 3)) {
    *c = check_byte((uintptr_t)c);
    c++, n--;
  }
  /* From an aligned address on, byte I is byte I % 4 of the word. */
  emu_fill32(c, EMU_CHECK_POISON_WORD, n);
}

NO_ASAN size_t poison_count(enum emu_poison_kind kind, const void *p, size_t n) {
  const unsigned char *c = p;
  size_t count = 0;
  if (kind == EMU_POISON_DEFAULT) {
    for (size_t i = 0; i < n; i++)
      count += c[i] == EMU_POISON_BYTE;
    return count;
  }
  while (n && ((uintptr_t)c & 3)) {
    count += *c == check_byte((uintptr_t)c);
    c++, n--;
  }
  if (n >= 4 && ((uintptr_t)c & 4)) {
    uint32_t v;
    memcpy(&v, c, 4);
    count += v == EMU_CHECK_POISON_WORD ? 4 : 0;
    c += 4, n -= 4;
  }
  /* Eight bytes at a time (a whole-word match is the usual case). */
  const uint64_t w2 = (uint64_t)EMU_CHECK_POISON_WORD << 32 |
                      EMU_CHECK_POISON_WORD;
  const uint64_t *q = (const uint64_t *)(const void *)c;
  for (size_t i = 0; i < n / 8; i++) {
    uint64_t v = q[i];
    if (v == w2)
      count += 8;
    else
      count += ((uint32_t)v == EMU_CHECK_POISON_WORD ? 4 : 0) +
               ((uint32_t)(v >> 32) == EMU_CHECK_POISON_WORD ? 4 : 0);
  }
  c += n / 8 * 8;
  n %= 8;
  if (n >= 4) {
    uint32_t v;
    memcpy(&v, c, 4);
    count += v == EMU_CHECK_POISON_WORD ? 4 : 0;
    c += 4, n -= 4;
  }
  while (n--) {
    count += *c == check_byte((uintptr_t)c);
    c++;
  }
  return count;
}

typedef uint64_t v4u64 __attribute__((vector_size(32)));

/* With AVX2 where the CPU has it (GNU function multiversioning). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CLONES
#endif

/* The bytes of the 128-byte steps from C (8-aligned) on, up to N, that
 * hold the word W throughout: the slack before a check-mode block is up
 * to a page, read after every kernel that had the block (32 steps, not
 * the 128 of four words a step). */
CLONES NO_ASAN static size_t same_words(const unsigned char *c, size_t n,
                                        uint64_t w) {
  const v4u64 vw = {w, w, w, w};
  size_t i = 0;
  for (; i + 128 <= n; i += 128) {
    v4u64 a, b, x, y;
    memcpy(&a, c + i, sizeof a);
    memcpy(&b, c + i + 32, sizeof b);
    memcpy(&x, c + i + 64, sizeof x);
    memcpy(&y, c + i + 96, sizeof y);
    v4u64 m = (a ^ vw) | (b ^ vw) | (x ^ vw) | (y ^ vw);
    if (m[0] | m[1] | m[2] | m[3])
      break;
  }
  return i;
}

NO_ASAN size_t poison_first_diff(enum emu_poison_kind kind, const void *p, size_t n) {
  const unsigned char *c = p;
  size_t i = 0;
  /* Whole aligned words first, then the bytes from the first word that
   * differs. */
  uint64_t w = kind == EMU_POISON_DEFAULT
                   ? 0x0101010101010101ull * EMU_POISON_BYTE
                   : (uint64_t)EMU_CHECK_POISON_WORD << 32 |
                         EMU_CHECK_POISON_WORD;
  if (((uintptr_t)c & 7) == 0) {
    if (n >= 128)
      i = same_words(c, n, w);
    while (i + 32 <= n) {
      const uint64_t *q = (const uint64_t *)(const void *)(c + i);
      if ((q[0] ^ w) | (q[1] ^ w) | (q[2] ^ w) | (q[3] ^ w))
        break;
      i += 32;
    }
    while (i + 8 <= n && *(const uint64_t *)(const void *)(c + i) == w)
      i += 8;
  }
  for (; i < n; i++) {
    unsigned char want = kind == EMU_POISON_DEFAULT
                             ? EMU_POISON_BYTE
                             : check_byte((uintptr_t)(c + i));
    if (c[i] != want)
      return i;
  }
  return n;
}

typedef void (*asan_fn)(const volatile void *, size_t);
static asan_fn asan_p, asan_u;
static pthread_once_t asan_once = PTHREAD_ONCE_INIT;
int emu_asan_state = -1;

static void asan_lookup(void) {
  asan_p = (asan_fn)dlsym(RTLD_DEFAULT, "__asan_poison_memory_region");
  asan_u = (asan_fn)dlsym(RTLD_DEFAULT, "__asan_unpoison_memory_region");
  if (!asan_p || !asan_u)
    asan_p = asan_u = NULL;
  __atomic_store_n(&emu_asan_state, asan_p != NULL, __ATOMIC_RELEASE);
}

int asan_present_slow(void) {
  pthread_once(&asan_once, asan_lookup);
  return __atomic_load_n(&emu_asan_state, __ATOMIC_ACQUIRE) > 0;
}

void asan_poison_hook(const void *p, size_t n) {
  asan_p(p, n);
}

void asan_unpoison_hook(const void *p, size_t n) {
  asan_u(p, n);
}
