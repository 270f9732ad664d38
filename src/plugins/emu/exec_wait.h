/* Waiting for another thread of the emu device's hand-offs (exec.c): a
 * futex, a clock, and the spin and yield phases that come before a futex
 * sleep, with the adaptive budget that limits the spin.  Why three phases:
 * see the top of exec.c. */
#ifndef EMU_EXEC_WAIT_H
#define EMU_EXEC_WAIT_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>

/* A spin budget in ns, shared by the threads that wait for one thread;
 * WAITS counts the waits, for the periodic probe (see wait_budget_get). */
struct spin_budget {
  _Atomic long ns;
  _Atomic unsigned waits;
};

/* FUTEX_WAIT or FUTEX_WAKE (process-private) on W. */
long wait_futex(_Atomic uint32_t *w, int op, uint32_t val);

/* CLOCK_MONOTONIC in ns. */
long wait_now_ns(void);

/* One pause of a spin loop. */
static inline void wait_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* The spin budget for the next wait on B (at most MAX), and its update
 * after a spin with budget USED ns that succeeded (OK) or not. */
long wait_budget_get(struct spin_budget *b, long max);
void wait_budget_update(struct spin_budget *b, long used, int ok, long max);

/* Spin within budget B (maximum MAX) until *W != V; 1 if it changed.  With
 * FAST_NS > 0 a spin that succeeds only after FAST_NS counts as a failure. */
int wait_spin(struct spin_budget *b, long max, long fast_ns,
              _Atomic uint32_t *w, uint32_t v);

/* Yield the CPU until *W != V, for up to NS; 1 if it changed. */
int wait_yield(_Atomic uint32_t *w, uint32_t v, long ns);

#endif
