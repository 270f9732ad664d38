/* Mutexes that many threads take for a few hundred nanoseconds at a time
 * (a device's map lock, the emu arena's lock): adaptive, so that a thread
 * finding one held by a thread that runs on another core spins briefly
 * (glibc's mutex spin count) instead of sleeping on the futex at once.
 * With 8 host threads launching on 2 cores a sleep there costs a futex
 * wait, a switch to another thread and a FUTEX_WAKE in the holder's
 * unlock: several microseconds, for a critical section of a fraction of
 * one (tests/bench/PROFILE.md, "8 host threads launching"). */
#ifndef OMPEMU_HOTLOCK_H
#define OMPEMU_HOTLOCK_H

#include <pthread.h>

/* Initialise M as a hot lock: 0, or pthread_mutex_init's error. */
int ompemu_hotlock_init(pthread_mutex_t *m);

#endif
