/* ompemu_hotlock_init (src/common/hotlock.h): the mutex is glibc's
 * adaptive kind (it spins briefly before sleeping) and still excludes:
 * threads that take it to count reach the exact total. */
#define _GNU_SOURCE /* PTHREAD_MUTEX_ADAPTIVE_NP */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hotlock.h"

static void test_adaptive(void **state) {
  (void)state;
  pthread_mutex_t m;
  assert_int_equal(ompemu_hotlock_init(&m), 0);
#ifdef __GLIBC__
  /* glibc keeps the type in the low bits of __kind. */
  assert_int_equal(m.__data.__kind & 0x7f, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
  assert_int_equal(pthread_mutex_trylock(&m), 0);
  assert_int_equal(pthread_mutex_trylock(&m), EBUSY);
  assert_int_equal(pthread_mutex_unlock(&m), 0);
  pthread_mutex_destroy(&m);
}

enum { THREADS = 4, ROUNDS = 200000 };
static pthread_mutex_t lock;
static long counter; /* plain: only the lock keeps the increments whole */

static void *count(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    pthread_mutex_lock(&lock);
    long v = counter;
    __asm__ volatile("" ::: "memory"); /* a read-modify-write in two steps */
    counter = v + 1;
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void test_excludes(void **state) {
  (void)state;
  assert_int_equal(ompemu_hotlock_init(&lock), 0);
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    assert_int_equal(pthread_create(&th[i], NULL, count, NULL), 0);
  for (int i = 0; i < THREADS; i++)
    pthread_join(th[i], NULL);
  assert_int_equal(counter, (long)THREADS * ROUNDS);
  pthread_mutex_destroy(&lock);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_adaptive),
      cmocka_unit_test(test_excludes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
