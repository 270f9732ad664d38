/* Copies and fills of device memory done on the host's threads (the copies
 * of a launch's maps, the poison): vector loops for the sizes a launch
 * moves, the C library for the rest (fastmem.c).  Same semantics as memcpy
 * and memset; no lock, no state but the processor's features, read once. */
#ifndef EMU_FASTMEM_H
#define EMU_FASTMEM_H

#include <stddef.h>
#include <stdint.h>

/* memcpy(DST, SRC, N); overlapping ranges are moved as memmove would. */
void emu_copy(void *dst, const void *src, size_t n);
/* Store the little-endian 32-bit word W over [P, P+N) from P on: byte I of
 * the range gets byte I % 4 of W (the last N % 4 bytes too).  With the
 * same byte four times, memset. */
void emu_fill32(void *p, uint32_t w, size_t n);

/* Tests: use at most the loops of LEVEL (1 the C library only, 2 AVX2,
 * 3 AVX-512F; never more than the processor has).  Returns the level now
 * in use, which is the processor's own after LEVEL 0. */
int emu_fastmem_limit(int level);

#endif
