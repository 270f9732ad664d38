/* Check mode: reads of device memory that nothing has written, seen by
 * making a block's pages inaccessible while a kernel runs (watch.c).  The
 * runtime starts and collects a watch with __tgt_rtl_ompemu_watch_unwritten
 * (include/ompemu/plugin.h). */
#ifndef EMU_WATCH_H
#define EMU_WATCH_H

#include <stdint.h>

struct emu_arena;

/* Watch [T, T+N), one live block of arena A (device DEV) holding only the
 * poison: its pages inaccessible until the next kernel returns.  0 / -1
 * (not one block, no slot left, mprotect failed).  EXACT: A is DEV's code
 * range and [T, T+N) data of an image loaded there (a declare-target
 * global) that shares its pages: only accesses to those bytes count
 * (watch.c).  EXACT 2: the same for bytes of the data range (the slack
 * before a block), given up after WATCH_STEP_BUDGET stepped accesses
 * without one (as if written: a read missed, never invented), so that a
 * kernel that works on the rest of the page is not stepped for long. */
#define WATCH_STEP_BUDGET 20000
int watch_start(struct emu_arena *a, int32_t dev, uintptr_t t, uintptr_t n,
                int exact);
/* End the watch of the block at T on DEV: *FIRST_READ the offset of the
 * first read recorded, -1 none.  0 / -1 (no such watch). */
int watch_stop(int32_t dev, uintptr_t t, int64_t *first_read);

/* For fault.c: a fault at X (a write when IS_WRITE) by the instruction at
 * IP (x86-64; NULL: unknown) on a watched page: recorded as a read when
 * BY_KERNEL (device code made it), the page made accessible (for that one
 * instruction when an exact watch needs it: the trap flag set in UC, the
 * interrupted context); 1 if it was one (the access is to be retried), 0
 * if not a watched page. */
int watch_fault(uintptr_t x, int is_write, const void *ip, int by_kernel,
                void *uc);

/* For fault.c: a fault at X on an arena page that no watch claims (watch_fault
 * 0).  A watch ended since X last faulted on this thread (it ended between
 * the fault and the look-up, and the page may be accessible now): 1, the
 * access is to be retried once more.  0: report it. */
int watch_retry(uintptr_t x);

/* X lies on the pages of a block watched now. */
int watch_active(uintptr_t x);

#endif
