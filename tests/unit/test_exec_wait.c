/* Unit tests of the emu device's waiting policy (src/plugins/emu/exec_wait.c
 * and the idle worker of exec.c): the idle spin budget learned from the
 * gaps between commands, the runnable count read from /proc/loadavg, the
 * sampled "a core is free" answer, and a worker handed one command per
 * millisecond sleeping at once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "emu_testutil.h"
#include "exec_internal.h"
#include "exec_wait.h"

#define MAX 50000L /* OMPEMU_SPIN_US's default, in ns */

/* A gap the spin could have covered: the budget covers twice it (within
 * MAX) and never shrinks for it. */
static void test_budget_short_gaps(void **state) {
  (void)state;
  assert_int_equal(wait_idle_budget(0, 10000, MAX), 21000);
  assert_int_equal(wait_idle_budget(40000, 3000, MAX), 40000);
  assert_int_equal(wait_idle_budget(0, 30000, MAX), MAX);
  assert_int_equal(wait_idle_budget(MAX, MAX, MAX), MAX);
  long b = 0;
  for (int i = 0; i < 100; i++)
    b = wait_idle_budget(b, 2000, MAX);
  assert_int_equal(b, 5000);
}

/* Gaps longer than MAX (one command per millisecond): the budget halves
 * to 0 and stays there, so the worker sleeps at once. */
static void test_budget_long_gaps(void **state) {
  (void)state;
  long b = MAX;
  int n = 0;
  while (b > 0 && n < 100) {
    long nb = wait_idle_budget(b, 1000000, MAX);
    assert_true(nb < b);
    b = nb;
    n++;
  }
  assert_int_equal(b, 0);
  assert_true(n <= 6);
  assert_int_equal(wait_idle_budget(0, 1000000, MAX), 0);
  assert_int_equal(wait_idle_budget(0, MAX + 1, MAX), 0);
  /* OMPEMU_SPIN_US=0: never a budget. */
  assert_int_equal(wait_idle_budget(0, 0, 0), 0);
  assert_int_equal(wait_idle_budget(0, 10, 0), 0);
}

static void test_parse_runnable(void **state) {
  (void)state;
  assert_int_equal(wait_parse_runnable("0.50 0.40 0.30 3/140 4571\n"), 3);
  assert_int_equal(wait_parse_runnable("12.01 9.00 4.75 17/1203 99\n"), 17);
  assert_int_equal(wait_parse_runnable("0.50 0.40 0.30 x/140 4571\n"), -1);
  assert_int_equal(wait_parse_runnable("0.50 0.40 0.30 3 4571\n"), -1);
  assert_int_equal(wait_parse_runnable("0.50 0.40\n"), -1);
  assert_int_equal(wait_parse_runnable(""), -1);
}

/* With more threads that never sleep than CPUs, no core is free (asked
 * again after each sample's lifetime until the answer changes). */
static atomic_int hog_stop;
static void *hog(void *arg) {
  (void)arg;
  while (!atomic_load_explicit(&hog_stop, memory_order_relaxed))
    ;
  return NULL;
}

static void test_core_busy(void **state) {
  (void)state;
  if (access("/proc/loadavg", R_OK) != 0)
    skip();
  long n = sysconf(_SC_NPROCESSORS_ONLN) + 2;
  pthread_t *th = calloc((size_t)n, sizeof *th);
  assert_non_null(th);
  atomic_store(&hog_stop, 0);
  for (long i = 0; i < n; i++)
    assert_int_equal(pthread_create(&th[i], NULL, hog, NULL), 0);
  int busy = 0;
  for (int i = 0; i < 200 && !busy; i++) {
    usleep(WAIT_CORE_SAMPLE_NS / 1000 + 500);
    busy = !wait_core_free(wait_now_ns());
  }
  atomic_store(&hog_stop, 1);
  for (long i = 0; i < n; i++)
    pthread_join(th[i], NULL);
  free(th);
  assert_true(busy);
}

static void k_empty(void *a) { (void)a; }

/* A worker handed one command every 2 ms (gaps far beyond its maximum
 * spin) keeps no spin budget: it sleeps as soon as it is idle. */
static void test_worker_sleeps_between_rare_commands(void **state) {
  (void)state;
  struct exec_options o;
  exec_read_options(&o);
  o.workers = 1;
  o.spin_ns = MAX;
  struct exec_device *d = exec_device_create(3, &o);
  assert_non_null(d);
  struct emu_devctx ctx = {3, NULL, 0, 0, 0};
  void *a[1] = {NULL};
  for (int i = 0; i < 100; i++) /* back to back: whatever it learns */
    assert_int_equal(exec_launch(d, NULL, (void *)k_empty, a, NULL, 1, &ctx,
                                 NULL), 0);
  for (int i = 0; i < 10; i++) {
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    assert_int_equal(exec_launch(d, NULL, (void *)k_empty, a, NULL, 1, &ctx,
                                 NULL), 0);
  }
  /* The worker updates its budget when its idle wait ends, which is
   * before it runs the command we waited for. */
  assert_int_equal(d->w[0].idle_ns, 0);
  exec_device_destroy(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_budget_short_gaps),
      cmocka_unit_test(test_budget_long_gaps),
      cmocka_unit_test(test_parse_runnable),
      cmocka_unit_test(test_core_busy),
      cmocka_unit_test(test_worker_sleeps_between_rare_commands),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
