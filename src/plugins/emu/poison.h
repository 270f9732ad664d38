/* Poison patterns of device memory (poison.c) and the sanitizer hooks the
 * arena calls.  Default: the byte 0xA5.  Check mode (OMPEMU_CHECK=1): the
 * 4-byte word 0xFFF5A5A5 repeated, aligned on the address, so that an
 * aligned float (0xFFF5A5A5) and double (0xFFF5A5A5FFF5A5A5) both read as
 * a NaN and an int32 as -678491. */
#ifndef EMU_POISON_H
#define EMU_POISON_H

#include <stddef.h>
#include <stdint.h>

#define EMU_POISON_BYTE 0xA5 /* default mode */
#define EMU_CHECK_POISON_WORD 0xFFF5A5A5u /* check mode */

enum emu_poison_kind { EMU_POISON_DEFAULT, EMU_POISON_CHECK };

/* Fill [P, P+N) with the pattern of KIND (phase taken from the address). */
void poison_fill(enum emu_poison_kind kind, void *p, size_t n);
/* Bytes of [P, P+N) that hold the pattern of KIND at their address.  In
 * check mode a whole aligned word counts only if all its bytes match. */
size_t poison_count(enum emu_poison_kind kind, const void *p, size_t n);
/* Offset of the first byte of [P, P+N) that does not hold the pattern,
 * or N. */
size_t poison_first_diff(enum emu_poison_kind kind, const void *p, size_t n);

/* AddressSanitizer, when it is in the process (looked up once with dlsym):
 * tell it that [P, P+N) may not be touched (asan_poison) or may
 * (asan_unpoison).  No-ops without ASan; inline, as the arena asks on
 * every allocation, free and fill. */
extern int emu_asan_state; /* 1 found, 0 not, -1 not looked up (atomic) */
int asan_present_slow(void);
void asan_poison_hook(const void *p, size_t n);
void asan_unpoison_hook(const void *p, size_t n);

static inline int asan_present(void) {
  int s = __atomic_load_n(&emu_asan_state, __ATOMIC_ACQUIRE);
  return s >= 0 ? s : asan_present_slow();
}

static inline void asan_poison(const void *p, size_t n) {
  if (n && asan_present())
    asan_poison_hook(p, n);
}

static inline void asan_unpoison(const void *p, size_t n) {
  if (n && asan_present())
    asan_unpoison_hook(p, n);
}

#endif
