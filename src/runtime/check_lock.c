/* check_lock, taken cheaply while one thread does all the checking
 * (check.h).  The checker takes it at every event it looks at, and a
 * mutex's two locked instructions were a quarter of an empty launch under
 * --check.  The first thread that takes it owns it, biased: it enters by
 * a plain store (OWNER_IN) and a load of the state, no locked instruction
 * and no mutex.  The first other thread to come revokes the bias once for
 * the rest of the process: it sets the state to REVOKING, makes the
 * owner's store visible with membarrier (every running thread of the
 * process executes a full barrier: the owner either sees the new state or
 * has its OWNER_IN seen), waits until the owner is out, and from then on
 * everyone takes the mutex.  Without membarrier (old kernels, valgrind)
 * the mutex is used from the start. */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { BIAS_OFF, BIAS_ON, BIAS_REVOKING, BIAS_DRAINING };

pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int bias = BIAS_OFF;
static _Atomic pthread_t owner;    /* 0 until the first thread takes it */
static _Atomic int owner_in;       /* the owner holds it without the mutex */

static long membarrier(int cmd) { return syscall(SYS_membarrier, cmd, 0, 0); }

void check_lock_setup(void) {
  if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0)
    atomic_store(&bias, BIAS_ON);
}

/* Another thread came: end the bias (the first to come does the system
 * call; whoever sees the owner out once it is done ends the wait). */
static void end_bias(void) {
  int on = BIAS_ON;
  if (atomic_compare_exchange_strong(&bias, &on, BIAS_REVOKING)) {
    membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
    atomic_store(&bias, BIAS_DRAINING);
  }
}

/* The bias is gone or going: 1 once it is off (then the mutex is the
 * lock), 0 while the owner is still inside. */
static int bias_off(void) {
  int b = atomic_load(&bias);
  if (b == BIAS_DRAINING && !atomic_load(&owner_in))
    atomic_compare_exchange_strong(&bias, &b, BIAS_OFF);
  return atomic_load(&bias) == BIAS_OFF;
}

/* The fast way in, for the owner: 1 if taken. */
static int take_fast(void) {
  pthread_t self = pthread_self(), o = atomic_load_explicit(&owner,
                                                            memory_order_relaxed);
  if (!o && atomic_compare_exchange_strong(&owner, &o, self))
    o = self;
  if (!pthread_equal(o, self)) {
    end_bias();
    return 0;
  }
  atomic_store_explicit(&owner_in, 1, memory_order_relaxed);
  /* Only the compiler must not move the load above the store: the
   * revoking thread's membarrier orders them on the processor. */
  atomic_signal_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&bias, memory_order_relaxed) == BIAS_ON)
    return 1;
  atomic_store_explicit(&owner_in, 0, memory_order_release);
  return 0;
}

void check_lock_take(void) {
  if (atomic_load_explicit(&bias, memory_order_relaxed) == BIAS_ON &&
      take_fast())
    return;
  while (!bias_off())
    sched_yield();
  pthread_mutex_lock(&check_lock);
}

/* Whether this thread holds it the fast way. */
static int held_fast(void) {
  return atomic_load_explicit(&owner_in, memory_order_relaxed) &&
         pthread_equal(atomic_load_explicit(&owner, memory_order_relaxed),
                       pthread_self());
}

void check_lock_give(void) {
  if (held_fast())
    atomic_store_explicit(&owner_in, 0, memory_order_release);
  else
    pthread_mutex_unlock(&check_lock);
}

void check_lock_mutex(void) {
  if (!held_fast())
    return;
  /* Nobody holds the mutex while the bias is on or going: the others
   * wait for BIAS_OFF first. */
  pthread_mutex_lock(&check_lock);
  int b = BIAS_ON;
  atomic_compare_exchange_strong(&bias, &b, BIAS_OFF);
  atomic_store_explicit(&owner_in, 0, memory_order_release);
}

int check_lock_try(void) {
  int b = atomic_load(&bias);
  if (b == BIAS_ON) {
    pthread_t self = pthread_self(), o = atomic_load(&owner);
    if (o && pthread_equal(o, self)) {
      if (atomic_load(&owner_in))
        return EBUSY; /* interrupted inside */
      return take_fast() ? 0 : EBUSY;
    }
    end_bias();
  }
  if (!bias_off())
    return EBUSY;
  return pthread_mutex_trylock(&check_lock);
}
