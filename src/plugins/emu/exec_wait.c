/* Spin, yield and futex waits of the emu device's hand-offs (see
 * exec_wait.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall */
#endif
#include "config.h"
#include "exec_wait.h"

#include <sched.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long wait_futex(_Atomic uint32_t *w, int op, uint32_t val) {
  return syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, val, NULL,
                 NULL, 0);
}

long wait_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Adaptive spinning.  Spinning makes a hand-off cost a cache-line
 * transfer instead of a futex wake-up, but only while both threads have a
 * CPU: on a loaded machine a spinner burns the time slice the other thread
 * needs and the scheduler then penalises it.  So a host waiting for a
 * worker keeps a budget: doubled (up to the OMPEMU_SPIN_US maximum) when
 * a spin succeeds, dropped to 0 when it runs out; every 8th wait probes with at least 2 us
 * so the budget recovers once the machine is quiet again. */
long wait_budget_get(struct spin_budget *b, long max) {
  long ns = atomic_load_explicit(&b->ns, memory_order_relaxed);
  unsigned k = atomic_fetch_add_explicit(&b->waits, 1, memory_order_relaxed);
  if ((k & 7) == 0 && ns < 2000)
    ns = 2000 < max ? 2000 : max;
  return ns;
}

void wait_budget_update(struct spin_budget *b, long used, int ok, long max) {
  long ns = atomic_load_explicit(&b->ns, memory_order_relaxed);
  if (ok)
    ns = ns * 2 + 1000 > max ? max : ns * 2 + 1000;
  else if (used > 0)
    ns = 0;
  atomic_store_explicit(&b->ns, ns, memory_order_relaxed);
}

/* Spin for up to SPIN_NS until *W != V.  1 if it changed; the time spent
 * in *USED when USED is not NULL. */
static int spin_while_eq(_Atomic uint32_t *w, uint32_t v, long spin_ns,
                         long *used) {
  if (used)
    *used = 0;
  if (spin_ns <= 0)
    return atomic_load(w) != v;
  long start = 0, t = 0;
  for (unsigned i = 0;; i++) {
    if (atomic_load_explicit(w, memory_order_acquire) != v) {
      if (used && start)
        *used = wait_now_ns() - start;
      return 1;
    }
    wait_relax();
    if ((i & 31) == 31) {
      t = wait_now_ns();
      if (!start)
        start = t;
      else if (t - start > spin_ns) {
        if (used)
          *used = t - start;
        return 0;
      }
    }
  }
}

/* The same with the adaptive budget B (maximum MAX).  With FAST_NS > 0 a
 * spin that succeeds only after FAST_NS counts as a failure: a host that
 * waited that long had better slept, leaving its CPU to the worker. */
int wait_spin(struct spin_budget *b, long max, long fast_ns,
              _Atomic uint32_t *w, uint32_t v) {
  if (max <= 0)
    return atomic_load(w) != v;
  long ns = wait_budget_get(b, max), used;
  int ok = spin_while_eq(w, v, ns, &used);
  wait_budget_update(b, ns, ok && (fast_ns <= 0 || used < fast_ns), max);
  return ok;
}

/* After the spin, yield the CPU until *W != V, for up to NS: with more runnable
 * threads than CPUs (8 host threads launching on 2 cores, or other
 * processes) this lets the thread we wait for run at once, on this CPU,
 * without the cross-CPU wake-up a futex costs; alone on its CPU, a yield
 * returns at once and this is a spin.  1 if *W changed. */
int wait_yield(_Atomic uint32_t *w, uint32_t v, long ns) {
  if (ns <= 0)
    return atomic_load(w) != v;
  long start = wait_now_ns();
  for (unsigned i = 1;; i++) {
    if (atomic_load_explicit(w, memory_order_acquire) != v)
      return 1;
    sched_yield();
    if ((i & 7) == 0 && wait_now_ns() - start > ns)
      return atomic_load(w) != v;
  }
}
