/* A lock biased to the first thread that takes it (biaslock.h). */
#define _GNU_SOURCE
#include "config.h"
#include "biaslock.h"
#include "hotlock.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }

static pthread_once_t registered = PTHREAD_ONCE_INIT;
static int can_bias;

static void register_process(void) {
  can_bias = membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

void biaslock_enable(struct biaslock *b) {
  pthread_once(&registered, register_process);
  if (can_bias)
    atomic_store(&b->bias, BIASLOCK_ON);
}

int biaslock_init(struct biaslock *b) {
  atomic_init(&b->bias, BIASLOCK_OFF);
  atomic_init(&b->owner, 0);
  atomic_init(&b->owner_in, 0);
  int e = ompemu_hotlock_init(&b->mutex);
  if (e == 0)
    biaslock_enable(b);
  return e;
}

void biaslock_destroy(struct biaslock *b) { pthread_mutex_destroy(&b->mutex); }

/* Another thread came: end the bias (the first to come does the system
 * call; whoever sees the owner out once it is done ends the wait).  The
 * expedited barrier fails only where the registration was lost (a child
 * of fork on some kernels): the global one, slower, does the same. */
static void end_bias(struct biaslock *b) {
  int on = BIASLOCK_ON;
  if (atomic_compare_exchange_strong(&b->bias, &on, BIASLOCK_REVOKING)) {
    if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) != 0)
      membarrier(MEMBARRIER_CMD_GLOBAL);
    atomic_store(&b->bias, BIASLOCK_DRAINING);
  }
}

/* The bias is gone or going: 1 once it is off (then the mutex is the
 * lock), 0 while the owner is still inside. */
static int bias_off(struct biaslock *b) {
  int s = atomic_load(&b->bias);
  if (s == BIASLOCK_DRAINING && !atomic_load(&b->owner_in))
    atomic_compare_exchange_strong(&b->bias, &s, BIASLOCK_OFF);
  return atomic_load(&b->bias) == BIASLOCK_OFF;
}

/* The biased way in: 1 if taken (claiming B for this thread if nobody
 * has); else the bias is ended or ending. */
static int take_fast(struct biaslock *b) {
  uintptr_t self = biaslock_self(), o = atomic_load(&b->owner);
  if (!o && atomic_compare_exchange_strong(&b->owner, &o, self))
    o = self;
  if (o != self) {
    end_bias(b);
    return 0;
  }
  atomic_store_explicit(&b->owner_in, 1, memory_order_relaxed);
  atomic_signal_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&b->bias, memory_order_relaxed) == BIASLOCK_ON)
    return 1;
  atomic_store_explicit(&b->owner_in, 0, memory_order_release);
  return 0;
}

/* Wait until the owner is out of a revoked B (once per lock). */
static void wait_bias_off(struct biaslock *b) {
  for (int i = 0; !bias_off(b); i++) {
    if (i < 100)
      sched_yield();
    else
      nanosleep(&(struct timespec){0, 50000}, NULL);
  }
}

void biaslock_lock_slow(struct biaslock *b) {
  if (atomic_load(&b->bias) == BIASLOCK_ON && take_fast(b))
    return;
  wait_bias_off(b);
  pthread_mutex_lock(&b->mutex);
}

void biaslock_mutex(struct biaslock *b) {
  if (!biaslock_held_fast(b))
    return;
  /* Nobody holds the mutex while the bias is on or going: the others
   * wait for BIASLOCK_OFF first, which needs owner_in clear. */
  pthread_mutex_lock(&b->mutex);
  int on = BIASLOCK_ON;
  atomic_compare_exchange_strong(&b->bias, &on, BIASLOCK_OFF);
  atomic_store_explicit(&b->owner_in, 0, memory_order_release);
}

int biaslock_trylock(struct biaslock *b) {
  if (atomic_load(&b->bias) == BIASLOCK_ON) {
    uintptr_t self = biaslock_self(), o = atomic_load(&b->owner);
    if (o && o == self) {
      if (atomic_load(&b->owner_in))
        return EBUSY; /* interrupted inside */
      return take_fast(b) ? 0 : EBUSY;
    }
    end_bias(b);
  }
  if (!bias_off(b))
    return EBUSY;
  return pthread_mutex_trylock(&b->mutex);
}
