/* A lock biased to the first thread that takes it: that thread enters by
 * a plain store (owner_in) and a load of the state, and leaves by a plain
 * store, no locked instruction.  The first other thread to come revokes
 * the bias, once, for the rest of the lock's life: it marks the state
 * REVOKING, makes the owner's store visible with membarrier (every
 * running thread of the process executes a full barrier, so the owner
 * either sees the new state or has its owner_in seen), waits until the
 * owner is out, and from then on everyone takes the mutex (a hot lock,
 * hotlock.h).  Without membarrier (old kernels, some sandboxes) the
 * mutex is used from the start.  For locks that one thread often takes
 * many times in a row (a device's map lock, the emu arena's lock, check
 * mode's lock): a 4 KiB launch took about 7 of them. */
#ifndef OMPEMU_BIASLOCK_H
#define OMPEMU_BIASLOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

enum { BIASLOCK_OFF, BIASLOCK_ON, BIASLOCK_REVOKING, BIASLOCK_DRAINING };

struct biaslock {
  pthread_mutex_t mutex;
  _Atomic int bias;         /* BIASLOCK_* */
  _Atomic uintptr_t owner;  /* biaslock_self, 0 until the first taker */
  _Atomic int owner_in;     /* the owner holds it without the mutex */
};

/* Statically initialised: a default mutex, not biased until
 * biaslock_enable. */
#define BIASLOCK_INITIALIZER \
  { PTHREAD_MUTEX_INITIALIZER, BIASLOCK_OFF, 0, 0 }

/* Initialise B (a hot lock's mutex, biased where membarrier works): 0, or
 * pthread_mutex_init's error. */
int biaslock_init(struct biaslock *b);
/* Bias B, not taken yet, where membarrier works. */
void biaslock_enable(struct biaslock *b);
void biaslock_destroy(struct biaslock *b);

void biaslock_lock_slow(struct biaslock *b);

/* The calling thread, as an owner: its thread pointer where the compiler
 * reads it inline (pthread_self is a call through the PLT, two per lock
 * and unlock), else pthread_self.  Unique among live threads either way. */
#if defined(__has_builtin) && (defined(__x86_64__) || defined(__aarch64__))
#if __has_builtin(__builtin_thread_pointer)
#define BIASLOCK_THREAD_POINTER 1
#endif
#endif
static inline uintptr_t biaslock_self(void) {
#ifdef BIASLOCK_THREAD_POINTER
  return (uintptr_t)__builtin_thread_pointer();
#else
  return (uintptr_t)pthread_self();
#endif
}

static inline void biaslock_lock(struct biaslock *b) {
  int s = atomic_load_explicit(&b->bias, memory_order_acquire);
  if (s == BIASLOCK_OFF) { /* for good: the revoker saw the owner out */
    pthread_mutex_lock(&b->mutex);
    return;
  }
  if (s == BIASLOCK_ON &&
      atomic_load_explicit(&b->owner, memory_order_relaxed) ==
          biaslock_self()) {
    atomic_store_explicit(&b->owner_in, 1, memory_order_relaxed);
    /* Only the compiler must not move the load above the store: the
     * revoking thread's membarrier orders them on the processor. */
    atomic_signal_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&b->bias, memory_order_relaxed) == BIASLOCK_ON)
      return;
    atomic_store_explicit(&b->owner_in, 0, memory_order_release);
  }
  biaslock_lock_slow(b);
}

/* Whether this thread holds B the biased way. */
static inline int biaslock_held_fast(struct biaslock *b) {
  return atomic_load_explicit(&b->owner_in, memory_order_relaxed) &&
         atomic_load_explicit(&b->owner, memory_order_relaxed) ==
             biaslock_self();
}

static inline void biaslock_unlock(struct biaslock *b) {
  if (biaslock_held_fast(b))
    atomic_store_explicit(&b->owner_in, 0, memory_order_release);
  else
    pthread_mutex_unlock(&b->mutex);
}

/* By the holder, before it waits on a condition variable with B: from
 * then on it holds B's mutex (and B is no longer biased). */
void biaslock_mutex(struct biaslock *b);
/* 0 if taken, else EBUSY (also for the owner interrupted inside, as in
 * a signal handler). */
int biaslock_trylock(struct biaslock *b);

#endif
