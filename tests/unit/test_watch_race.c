/* Unit test of a check-mode fault whose watch ends between the fault and
 * the handler's look-up (fault.c, watch.c: watch_retry): another thread's
 * kernel ended and its watch was lifted, so the page is accessible again;
 * the access is retried, not reported as an invalid one.  The interleaving
 * is forced by wrapping watch_fault (-Wl,--wrap): it ends the watch first. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena.h"
#include "arena_testutil.h"
#include "devicertl.h"
#include "fault.h"
#include "watch.h"

int __real_watch_fault(uintptr_t x, int is_write, const void *ip,
                       int by_kernel, void *uc);
static uintptr_t end_first; /* the watched block to end at the next fault */
int __wrap_watch_fault(uintptr_t x, int is_write, const void *ip,
                       int by_kernel, void *uc) {
  uintptr_t t = end_first;
  end_first = 0;
  if (t)
    watch_stop(2, t, NULL);
  return __real_watch_fault(x, is_write, ip, by_kernel, uc);
}

static struct emu_arena *arena;
static char *block;

static void setup_watch(void) {
  arena = check_arena_with_block(&block);
  if (watch_start(arena, 2, (uintptr_t)block, 800, 0) != 0)
    _exit(3);
}

/* The watch ends between the fault and the look-up: the read goes on. */
NO_ASAN static void read_as_watch_ends(void) {
  setup_watch();
  end_first = (uintptr_t)block;
  (void)*(volatile double *)block;
  _exit(0);
}

/* A real invalid read (past the block's end, the guard page) is still
 * reported, after one retry, when a watch ended in between. */
NO_ASAN static void read_guard_as_watch_ends(void) {
  setup_watch();
  end_first = (uintptr_t)block;
  static struct emu_devctx ctx = {.device = 2, .num_teams = 1,
                                  .thread_limit = 1, .entry = (void *)0x1234};
  emu_set_ctx(&ctx);
  (void)*(volatile double *)(block + 808);
  _exit(0);
}

static void test_fault_as_watch_ends(void **state) {
  (void)state;
  int status = 0;
  char *out = in_child(read_as_watch_ends, &status);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_null(strstr(out, "invalid"));
  free(out);
  out = in_child(read_guard_as_watch_ends, &status);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 42);
  assert_non_null(strstr(out, "invalid read of device memory"));
  free(out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fault_as_watch_ends),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
