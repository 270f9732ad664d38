/* Spin, yield and futex waits of the emu device's hand-offs (see
 * exec_wait.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* syscall */
#endif
#include "config.h"
#include "exec_wait.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
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
 * worker keeps a budget: doubled (up to its maximum) when a spin
 * succeeds, dropped to 0 when it runs out; every 8th wait probes with at
 * least 2 us so the budget recovers once the machine is quiet again.  (An
 * idle worker's budget follows the gaps between its commands instead:
 * wait_idle_budget.) */
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

int wait_spin_for(_Atomic uint32_t *w, uint32_t v, long ns) {
  return spin_while_eq(w, v, ns, NULL);
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

long wait_parse_runnable(const char *text) {
  int fields = 0;
  for (const char *p = text; *p; p++)
    if (*p == ' ' && ++fields == 3) {
      char *end;
      long r = strtol(p + 1, &end, 10);
      return end != p + 1 && *end == '/' ? r : -1;
    }
  return -1;
}

static int loadavg_fd = -1;
static long ncpu;
static pthread_once_t core_once = PTHREAD_ONCE_INIT;

static void core_init(void) {
  loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  ncpu = sysconf(_SC_NPROCESSORS_ONLN);
}

/* Read /proc/loadavg (one pread on a descriptor kept open): 1 if a core
 * is free, or if it cannot tell. */
static int core_sample(void) {
  pthread_once(&core_once, core_init);
  char buf[128];
  ssize_t n = loadavg_fd < 0 ? -1 : pread(loadavg_fd, buf, sizeof buf - 1, 0);
  if (n <= 0 || ncpu <= 0)
    return 1;
  buf[n] = '\0';
  long r = wait_parse_runnable(buf);
  return r < 0 || r <= ncpu;
}

static _Atomic long core_at = -WAIT_CORE_SAMPLE_NS; /* when sampled */
static _Atomic int core_free = 1;

int wait_core_free(long now) {
  long t = atomic_load_explicit(&core_at, memory_order_relaxed);
  if (now - t < WAIT_CORE_SAMPLE_NS ||
      !atomic_compare_exchange_strong_explicit(&core_at, &t, now,
                                               memory_order_relaxed,
                                               memory_order_relaxed))
    return atomic_load_explicit(&core_free, memory_order_relaxed);
  int f = core_sample();
  atomic_store_explicit(&core_free, f, memory_order_relaxed);
  return f;
}

long wait_idle_budget(long budget, long gap, long max) {
  if (gap <= max) {
    long want = 2 * gap + 1000;
    budget = budget > want ? budget : want;
    return budget < max ? budget : max;
  }
  budget /= 2;
  return budget < 1000 ? 0 : budget;
}
