/* Which of a kernel's faulting device threads is reported (fault_hold.c),
 * in check mode and where the fault's default action ends the process.  Threads of one kernel fault in an order that depends on
 * timing; the one reported must not.  A faulting thread's message is held
 * and the thread parks; once every thread of the league has faulted, or
 * the threads still running have all stopped (at a barrier, a join, a
 * lock the parked ones hold), the held fault of the lowest (team, thread)
 * is written and the process ends. */
#ifndef EMU_FAULT_HOLD_H
#define EMU_FAULT_HOLD_H

#include <stdint.h>

/* Look up libomp's team and thread queries (not from a signal handler). */
void fault_hold_init(void);
/* From the fault handler, on the faulting thread: hold MSG (one line or
 * more, ending in a newline) for the fault at X; KERNEL_THREAD when the
 * thread runs device code (then libomp numbers it).  The chosen message is
 * written, then END; then the process ends with STATUS, or, when STATUS is
 * negative, fault_hold returns on one thread (the others never return),
 * whose caller hands its fault on. */
void fault_hold(const char *msg, uintptr_t x, int kernel_thread,
                const char *end, int status);

#endif
