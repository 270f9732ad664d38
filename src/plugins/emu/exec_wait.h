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

/* Spin for up to NS until *W != V, without a budget; 1 if it changed. */
int wait_spin_for(_Atomic uint32_t *w, uint32_t v, long ns);

/* Yield the CPU until *W != V, for up to NS; 1 if it changed. */
int wait_yield(_Atomic uint32_t *w, uint32_t v, long ns);

/* 1 if a core is free: the machine's runnable threads (the caller
 * included; /proc/loadavg's "R/T" field) are at most its CPUs, sampled at
 * most once per WAIT_CORE_SAMPLE_NS by one of the threads that ask (NOW:
 * wait_now_ns()); 1 when it cannot be read.  Spinning and yielding pay
 * only then: otherwise a spinner takes a core that a thread of the
 * program, or of another process, is waiting for. */
#define WAIT_CORE_SAMPLE_NS 2000000L
int wait_core_free(long now);

/* The runnable threads in the text of /proc/loadavg TEXT, -1 if none. */
long wait_parse_runnable(const char *text);

/* An idle worker's spin budget after an idle GAP (ns, from its last
 * command's end to the next command) with budget BUDGET, at most MAX: a
 * gap the spin could have covered makes the budget cover twice it; a
 * longer one halves the budget (0 below 1 us), so a device that is
 * handed one command per millisecond soon sleeps at once, and one given
 * commands back to back keeps spinning. */
long wait_idle_budget(long budget, long gap, long max);

#endif
