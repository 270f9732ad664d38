/* Checks of the calling thread before exec_launch_here runs a kernel on
 * it (exec_inline.c). */
#ifndef EMU_EXEC_INLINE_H
#define EMU_EXEC_INLINE_H

#include <stddef.h>
#include <stdint.h>

/* libomp's view of a thread: level and the ICVs a kernel can read. */
struct exec_icvs {
  int known; /* libomp is in the process */
  int level, max_threads, dynamic, max_active, max_teams, teams_limit;
  int sched_kind, sched_chunk;
};

/* 1 if the calling thread has NEED bytes of stack left (less a slack).
 * *LO: the thread's lowest stack address, 0 until found (the caller keeps
 * it per thread). */
int exec_inline_stack_ok(size_t need, uintptr_t *lo);
/* The calling thread's libomp state into *(struct exec_icvs *)OUT (an
 * exec_call function: run on a worker, it gives a new root's). */
void exec_inline_read_icvs(void *out);
/* 1 if the calling thread's libomp state is FRESH's, at level 0. */
int exec_inline_icvs_ok(const struct exec_icvs *fresh);

#endif
