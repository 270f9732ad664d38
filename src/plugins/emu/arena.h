/* Device memory arena: one reserved virtual range per device and purpose
 * (data or code) at a fixed base, a deterministic allocator inside it, a
 * capacity, and poisoning of fresh and freed blocks.  Thread safety: every
 * function takes the arena's own mutex. */
#ifndef EMU_ARENA_H
#define EMU_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "poison.h"

/* Documented fixed ranges (README "Device model", docs/design.md "The
 * emulated device").  They lie in [0x550000000000, 0x555555554000): the
 * part of x86-64 Linux's user space that ASan, TSan (gcc 12, clang 14) and
 * MSan (clang 14 and later) all leave to the application, just below where
 * Linux puts a PIE executable (0x555555554000 plus a random offset) and far
 * from libraries, stacks and the heap.
 *   data of device D:  EMU_DATA_BASE + D * EMU_DATA_STRIDE (16 GiB each)
 *   code of device D:  EMU_CODE_BASE + D * EMU_CODE_STRIDE (512 MiB each)
 *   host pointer aliases (check mode): [EMU_ALIAS_BASE, + EMU_ALIAS_SIZE) */
#define EMU_DATA_BASE 0x550000000000ULL
#define EMU_DATA_STRIDE 0x000400000000ULL /* 16 GiB */
#define EMU_CODE_BASE 0x554000000000ULL
#define EMU_CODE_STRIDE 0x000020000000ULL /* 512 MiB */
#define EMU_ALIAS_BASE 0x554400000000ULL
#define EMU_ALIAS_SIZE 0x001000000000ULL  /* 64 GiB */
#define EMU_MAX_DEVICES 16
#define EMU_DATA_ALIGN 256
/* Check mode: live blocks with a guard page of their own, at most. */
#define EMU_CHECK_GUARDED_MAX 16384
/* Check mode: freed blocks kept PROT_NONE, at least and, give or take
 * EMU_CHECK_RELEASE_BATCH, at most (oldest go first, that many at a
 * time). */
#define EMU_CHECK_QUARANTINE_MAX 4096
/* Check mode: body bytes of the freed blocks that keep their pages
 * (EMU_CHECK_KEEP_MAX) in quarantine, at most, give or take
 * EMU_CHECK_RELEASE_BATCH pages: at least 256 blocks of a page. */
#define EMU_CHECK_QUARANTINE_KEPT ((size_t)1 << 20)
#define EMU_CHECK_RELEASE_BATCH 64
/* Check mode: freed blocks of at most this many bytes keep their pages,
 * read-write until the next kernel (arena_protect.c); larger ones are
 * given back to the system when freed. */
#define EMU_CHECK_KEEP_MAX ((size_t)16 << 10)
/* Check mode: freed ranges left read-write, at most, before they are all
 * protected without waiting for a kernel.  Only the bookkeeping (a node
 * of 64 bytes each, 16 MiB at most) limits it: the pages stay populated
 * either way.  At 65 536 a program that unmapped 100 000 blocks without
 * a kernel between paid 18 000 mprotect calls (scattered ranges) for
 * protection no kernel needed, and as many again to open them for the
 * next blocks. */
#define EMU_CHECK_UNPROT_MAX 262144
/* Check mode: freed blocks are made inaccessible at the latest before the
 * kernel launched this many kernels after the oldest was freed (at once
 * when a kernel is given a pointer into one): arena_protect.c. */
#define EMU_CHECK_PROTECT_EVERY 64
/* Check mode: bytes of free pages after a block without a guard page that
 * the allocation opens with it (arena.c, make_accessible). */
#define EMU_CHECK_AHEAD ((size_t)64 << 10)
/* Check mode with guard markers: bytes of free pages the quarantine gave
 * back that a guarded block's allocation opens after it (arena.c). */
#define EMU_CHECK_REOPEN ((size_t)512 << 10)
/* Check mode with guard markers: never-allocated pages are made
 * read-write with a marker on each this many bytes at a time
 * (arena_protect.c, arena_marks_arm). */
#define EMU_CHECK_ARM ((size_t)2 << 20)
/* With ASan in the process: bytes of poisoned slack after a data block,
 * at least (the alignment gives more where the size leaves it). */
#define EMU_ASAN_REDZONE 16
/* Default mode: freed blocks of at least this many bytes are poisoned
 * lazily (before the next kernel, or when reused). */
#define EMU_LAZY_FREE_MIN ((size_t)256 << 10)

struct emu_arena;

/* Flags of arena_create_ex. */
#define ARENA_LAZY 0x1  /* poison lazily (below); for data arenas */
#define ARENA_CHECK 0x2 /* check mode layout (below); implies ARENA_LAZY */

/* Reserve [BASE, BASE+SPAN) with MAP_FIXED_NOREPLACE; at most CAPACITY
 * bytes (rounded up to the alignment per block) may be allocated.  WHAT
 * ("data" or "code") and DEV name the range in messages.  Returns NULL
 * with a message naming the range if it is taken.  arena_create is
 * arena_create_ex with no flags and SPAN == CAPACITY.
 *
 * ARENA_LAZY: a fresh block is not filled at once.  Its poison is written
 * before any kernel runs (arena_settle), before it is read through
 * arena_read_begin, or when a first copy into it does not cover it; a
 * first copy that covers it (arena_write_begin) leaves nothing to fill.
 * Freed blocks of EMU_LAZY_FREE_MIN bytes or more are likewise poisoned by
 * the next arena_settle or when reused.
 *
 * ARENA_CHECK: the range is PROT_NONE except for live blocks.  A block
 * takes whole pages, ends exactly where its last page ends (aligned to the
 * largest power of two dividing its size, 16 at most), and is followed by a
 * PROT_NONE guard page (for up to EMU_CHECK_GUARDED_MAX live blocks at a
 * time: the kernel limits the number of mappings).  The slack before it
 * (and after a block of size 0) holds the check-mode poison and is checked
 * when the block is freed or read back.  A freed block is quarantined for the
 * EMU_CHECK_QUARANTINE_MAX frees that follow (a block of at most
 * EMU_CHECK_KEEP_MAX bytes: until the quarantined blocks that keep their
 * pages keep EMU_CHECK_QUARANTINE_KEPT bytes after it, if that comes
 * first), or until the range runs short, and PROT_NONE from the first kernel given a pointer into it or
 * the EMU_CHECK_PROTECT_EVERY-th kernel after its free (arena_protect.c;
 * arena_settle and arena_note_kernel do it).  The poison
 * is the check-mode pattern. */
struct emu_arena *arena_create(const char *what, int dev, uintptr_t base,
                               size_t capacity, size_t align);
struct emu_arena *arena_create_ex(const char *what, int dev, uintptr_t base,
                                  size_t capacity, size_t align,
                                  unsigned flags, size_t span);
void arena_destroy(struct emu_arena *a);

/* Allocate SIZE bytes (SIZE 0 gives a minimal block), aligned to the arena's
 * alignment, poisoned (lazily with ARENA_LAZY).  Same sequence of requests,
 * same addresses: address-ordered first fit.  NULL when the capacity would
 * be exceeded. */
void *arena_alloc(struct emu_arena *a, size_t size);

/* Hold freed blocks back from reuse: a freed block is handed out again
 * only once more than MAX_BLOCKS blocks, or more than MAX_BYTES bytes,
 * were freed after it, or when an allocation could not be satisfied
 * otherwise (oldest first).  0, 0 (the default): reuse at once.  A
 * runtime that compares a new allocation's address with a stale copy of
 * an old one (LLVM 14's shadow pointers) then sees a different address,
 * as with malloc; the order stays deterministic. */
void arena_set_reuse_delay(struct emu_arena *a, size_t max_blocks,
                           size_t max_bytes);

/* Free a block returned by arena_alloc.  A pointer that is not the start
 * of a live block: message naming the address (and the block it falls in,
 * if any), returns -1. */
int arena_free(struct emu_arena *a, void *p);

/* 0 if [P, P+SIZE) lies inside one live block, else -1 (no message). */
int arena_check(struct emu_arena *a, const void *p, size_t size);
/* As arena_check, for a copy that writes [P, P+SIZE) (host to device):
 * a block not yet poisoned is poisoned first unless the copy covers it. */
int arena_write_begin(struct emu_arena *a, const void *p, size_t size);
/* As arena_check, for a copy that reads [P, P+SIZE): a block not yet
 * poisoned is poisoned first; in check mode its slack is checked. */
int arena_read_begin(struct emu_arena *a, const void *p, size_t size);
/* Write every poison still owed (fresh blocks, large freed blocks): called
 * before a kernel runs.  Costs one atomic load when nothing is owed. */
void arena_settle(struct emu_arena *a);

/* Bytes of [P, P+SIZE) that still hold the poison pattern, in *COUNT;
 * -1 if the range is not inside one live block. */
int arena_poisoned_bytes(struct emu_arena *a, const void *p, size_t size,
                         size_t *count);

/* Check mode: H2D copy of N bytes from SRC: the blocks whose addresses it
 * carries (aligned 8-byte words) may be reached by device code through
 * device memory, so once freed they are protected before the next kernel
 * if the device memory they were copied to (TGT; 0: not known) still
 * holds them then (arena_holders.c); a freed one is protected at once. */
void arena_note_pointers(struct emu_arena *a, const void *src, size_t n,
                         uintptr_t tgt);
/* 1 if every address of A lies in [LO, LO+SPAN). */
int arena_within(const struct emu_arena *a, uint64_t lo, uint64_t span);
/* Check mode: remember that kernel ENTRY was given a pointer to P, to name
 * it if the block's slack is found overwritten; a pointer into a freed
 * block makes it inaccessible before the kernel. */
void arena_note_kernel(struct emu_arena *a, const void *p, const void *entry);
/* Name of a kernel entry for messages (set by the plugin; NULL: none);
 * also looks up the runtime's ompemu_describe_kernel (its place). */
void arena_set_kernel_namer(const char *(*fn)(const void *entry));
/* Check mode: FN(X) is 1 when X lies on a watched page (watch.c), which
 * the arena does not read (set by the plugin; NULL: none are). */
void arena_set_watched(int (*fn)(uintptr_t x));
/* Check mode: [LO, LO+LEN) is memory outside A that a kernel of A's device
 * can write and a later kernel read (an image's data, OWNER the image): a
 * freed block's address left there keeps the block reachable
 * (arena_holders.c).  _drop forgets OWNER's ranges. */
void arena_reach_add(struct emu_arena *a, const void *owner, uintptr_t lo,
                     size_t len);
void arena_reach_drop(struct emu_arena *a, const void *owner);
/* A kernel in messages: "kernel NAME at FILE:LINE" (the place when the
 * runtime knows the construct: check mode), "kernel NAME", "kernel at
 * 0x...", or "device code" for a NULL ENTRY.  Safe in a signal handler. */
void arena_kernel_words(const void *entry, char *buf, size_t len);

/* Start and size of the live block containing P; -1 if none. */
int arena_block_of(struct emu_arena *a, const void *p, void **start,
                   size_t *size);

/* For the fault handler: what the range address X is (a live block's
 * slack or guard, a freed block, never-allocated memory), written into
 * BUF.  Takes the lock if it can within about a second (the handler runs
 * on a thread that holds no arena lock), else reads without it.  0 if X is
 * in the range. */
int arena_describe(struct emu_arena *a, uintptr_t x, char *buf, size_t len);

uintptr_t arena_base(const struct emu_arena *a);
size_t arena_capacity(const struct emu_arena *a);
size_t arena_span(const struct emu_arena *a);
size_t arena_in_use(const struct emu_arena *a);
int arena_owns(const struct emu_arena *a, const void *p); /* in the range */
int arena_dev(const struct emu_arena *a);
enum emu_poison_kind arena_poison_kind(const struct emu_arena *a);

#endif
