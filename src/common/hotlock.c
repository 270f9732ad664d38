/* Adaptive mutexes for short, contended critical sections (hotlock.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#endif
#include "config.h"
#include "hotlock.h"

int ompemu_hotlock_init(pthread_mutex_t *m) {
  pthread_mutexattr_t a;
  if (pthread_mutexattr_init(&a) != 0)
    return pthread_mutex_init(m, NULL);
#ifdef __GLIBC__
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
  int e = pthread_mutex_init(m, &a);
  pthread_mutexattr_destroy(&a);
  return e;
}
