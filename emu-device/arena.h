/* Device memory arena: one reserved virtual range per device and purpose
 * (data or code) at a fixed base, a deterministic allocator inside it, a
 * capacity, and poisoning of fresh and freed blocks.  Thread safety: every
 * function takes the arena's own mutex. */
#ifndef EMU_ARENA_H
#define EMU_ARENA_H

#include <stddef.h>
#include <stdint.h>

/* Documented fixed bases (README "Device model").  Device D's data range
 * starts at EMU_DATA_BASE + D * EMU_DEVICE_STRIDE, its code range at
 * EMU_CODE_BASE + D * EMU_DEVICE_STRIDE.  Both lie above ASan's shadow and
 * far below where Linux places libraries, stacks and the heap. */
#define EMU_DATA_BASE 0x200000000000ULL
#define EMU_CODE_BASE 0x300000000000ULL
#define EMU_DEVICE_STRIDE 0x010000000000ULL /* 1 TiB per device */
#define EMU_MAX_DEVICES 16
#define EMU_POISON_BYTE 0xA5 /* written into fresh and freed blocks */
#define EMU_DATA_ALIGN 256

struct emu_arena;

/* Reserve [BASE, BASE+CAPACITY) with MAP_FIXED_NOREPLACE.  WHAT ("data" or
 * "code") and DEV name the range in messages.  Returns NULL with a message
 * naming the range if it is taken. */
struct emu_arena *arena_create(const char *what, int dev, uintptr_t base,
                               size_t capacity, size_t align);
void arena_destroy(struct emu_arena *a);

/* Allocate SIZE bytes (SIZE 0 gives a minimal block), aligned to the arena's
 * alignment, filled with EMU_POISON_BYTE.  Same sequence of requests, same
 * addresses.  NULL with a message when the capacity would be exceeded. */
void *arena_alloc(struct emu_arena *a, size_t size);

/* Free a block returned by arena_alloc.  A pointer that is not the start
 * of a live block: message naming the address (and the block it falls in,
 * if any), returns -1. */
int arena_free(struct emu_arena *a, void *p);

/* 0 if [P, P+SIZE) lies inside one live block, else -1 (no message). */
int arena_check(struct emu_arena *a, const void *p, size_t size);

/* Start and size of the live block containing P; -1 if none. */
int arena_block_of(struct emu_arena *a, const void *p, void **start,
                   size_t *size);

uintptr_t arena_base(const struct emu_arena *a);
size_t arena_capacity(const struct emu_arena *a);
size_t arena_in_use(const struct emu_arena *a);
int arena_owns(const struct emu_arena *a, const void *p); /* in the range */

#endif
