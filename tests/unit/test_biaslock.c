/* The biased lock (src/common/biaslock.h): per lock, the first thread to
 * take it holds it without the mutex; another thread ends that, once, and
 * no increment is lost; trylock elsewhere fails while the owner is inside,
 * and in the owner itself while it is inside (a signal handler); a holder
 * can wait on a condition variable with the mutex.  Where the process
 * cannot use membarrier the lock is the mutex from the start, which
 * test_unbiased checks instead of the bias. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "biaslock.h"

enum { ROUNDS = 200000 };
static struct biaslock lock;
static long counter; /* plain: only the lock keeps the increments whole */

static int biased(struct biaslock *b) {
  return atomic_load(&b->bias) == BIASLOCK_ON;
}

/* Whether B is held, and by its mutex. */
static int mutex_held(struct biaslock *b) {
  if (pthread_mutex_trylock(&b->mutex) != 0)
    return 1;
  pthread_mutex_unlock(&b->mutex);
  return 0;
}

static void count_once(void) {
  biaslock_lock(&lock);
  long v = counter;
  __asm__ volatile("" ::: "memory"); /* a read-modify-write in two steps */
  counter = v + 1;
  biaslock_unlock(&lock);
}

static void *count(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++)
    count_once();
  return NULL;
}

static void *try_other(void *arg) {
  int rc = biaslock_trylock(arg);
  if (rc == 0)
    biaslock_unlock(arg);
  return (void *)(intptr_t)rc;
}

static void *take_and_check(void *arg) {
  struct biaslock *b = arg;
  biaslock_lock(b);
  intptr_t fast = !mutex_held(b);
  biaslock_unlock(b);
  return (void *)fast;
}

static void test_biased(void **state) {
  (void)state;
  assert_int_equal(biaslock_init(&lock), 0);
  if (!biased(&lock))
    skip();
  /* Per lock: another lock's owner is whoever takes it first. */
  struct biaslock other;
  assert_int_equal(biaslock_init(&other), 0);
  pthread_t t;
  void *rc;
  assert_int_equal(pthread_create(&t, NULL, take_and_check, &other), 0);
  assert_int_equal(pthread_join(t, &rc), 0);
  assert_int_equal((intptr_t)rc, 1);
  biaslock_lock(&lock);
  assert_false(mutex_held(&lock));
  assert_int_equal(biaslock_trylock(&lock), EBUSY); /* owner, inside */
  assert_int_equal(pthread_create(&t, NULL, try_other, &lock), 0);
  assert_int_equal(pthread_join(t, &rc), 0);
  assert_int_equal((intptr_t)rc, EBUSY); /* and the bias is ending */
  biaslock_unlock(&lock);
  assert_false(biased(&lock));
  /* The other lock is still biased to its thread. */
  assert_true(biased(&other));
  biaslock_destroy(&other);
  biaslock_destroy(&lock);
}

static void test_excludes(void **state) {
  (void)state;
  assert_int_equal(biaslock_init(&lock), 0);
  counter = 0;
  pthread_t t;
  for (int i = 0; i < ROUNDS; i++) {
    if (i == ROUNDS / 100)
      assert_int_equal(pthread_create(&t, NULL, count, NULL), 0);
    count_once();
  }
  assert_int_equal(pthread_join(t, NULL), 0);
  assert_int_equal(counter, 2L * ROUNDS);
  biaslock_lock(&lock);
  assert_true(mutex_held(&lock)); /* the mutex now, for everyone */
  biaslock_unlock(&lock);
  biaslock_destroy(&lock);
}

static void test_cond_wait(void **state) {
  (void)state;
  assert_int_equal(biaslock_init(&lock), 0);
  pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  biaslock_lock(&lock);
  biaslock_mutex(&lock);
  assert_true(mutex_held(&lock));
  assert_int_equal(pthread_cond_timedwait(&cv, &lock.mutex, &until),
                   ETIMEDOUT);
  biaslock_unlock(&lock);
  assert_false(mutex_held(&lock));
  void *rc;
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, try_other, &lock), 0);
  assert_int_equal(pthread_join(t, &rc), 0);
  assert_int_equal((intptr_t)rc, 0);
  biaslock_destroy(&lock);
}

/* A lock never enabled is the mutex alone. */
static void test_unbiased(void **state) {
  (void)state;
  struct biaslock b = BIASLOCK_INITIALIZER;
  biaslock_lock(&b);
  assert_true(mutex_held(&b));
  biaslock_unlock(&b);
  assert_int_equal(biaslock_trylock(&b), 0);
  assert_true(mutex_held(&b));
  biaslock_unlock(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_biased),
      cmocka_unit_test(test_excludes),
      cmocka_unit_test(test_cond_wait),
      cmocka_unit_test(test_unbiased),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
