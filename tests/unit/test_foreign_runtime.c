/* Unit tests of src/runtime/foreign_runtime.c: which file names are
 * offload runtimes, and rt_check_single_runtime finding a second runtime
 * loaded in the process (copies of tests/unit/foreign_stub.c under LLVM's
 * names), reported with its path, while the runtime itself, under any
 * name, is never reported. */
#include "config.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "foreign_runtime.h"
#include "trace.h"

static char last[1024];
static int nerrors;

static void observe(enum ompemu_severity sev, const char *line) {
  if (sev >= OMPEMU_ERROR) {
    nerrors++;
    snprintf(last, sizeof last, "%s", line);
  }
}

static void test_names(void **state) {
  (void)state;
  assert_true(rt_is_offload_runtime_name("libomptarget.so"));
  assert_true(rt_is_offload_runtime_name("libomptarget.so.16"));
  assert_true(rt_is_offload_runtime_name("libomptarget.so.19.1"));
  assert_true(rt_is_offload_runtime_name("/usr/lib/llvm-22/lib/libomptarget.so.22.1"));
  assert_false(rt_is_offload_runtime_name("libomptarget.rtl.x86_64.so"));
  assert_false(rt_is_offload_runtime_name("libomptarget.rtl.emu.so"));
  assert_false(rt_is_offload_runtime_name("libomptarget.devicertl.a"));
  assert_false(rt_is_offload_runtime_name("libomptarget.so."));
  assert_false(rt_is_offload_runtime_name("libomptarget.so.16.bak"));
  assert_false(rt_is_offload_runtime_name("libomptarget.sox"));
  assert_false(rt_is_offload_runtime_name("/lib/libomptarget.so/x"));
  assert_false(rt_is_offload_runtime_name(""));
  assert_false(rt_is_offload_runtime_name(NULL));
}

static char dir[256];

/* Copy the stub library to DIR/NAME (a copy: a new file, as LLVM's is). */
static void copy_stub(const char *name, char *path, size_t len) {
  const char *b = getenv("OMPEMU_BUILDDIR");
  char src[512], cmd[1400];
  snprintf(src, sizeof src, "%s/tests/unit/.libs/libforeignstub.so", b ? b : ".");
  snprintf(path, len, "%s/%s", dir, name);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, path);
  assert_int_equal(system(cmd), 0);
}

static void test_second_runtime_found(void **state) {
  (void)state;
  ompemu_set_diag_observer(observe);
  snprintf(dir, sizeof dir, "%s/foreign-rt.XXXXXX", P_tmpdir);
  assert_non_null(mkdtemp(dir));
  /* Nothing loaded yet: this process has no other runtime. */
  nerrors = 0;
  assert_int_equal(rt_check_single_runtime(), 0);
  assert_int_equal(nerrors, 0);

  /* One runtime under clang 22's name. */
  char p22[512], p19[512];
  copy_stub("libomptarget.so.22.1", p22, sizeof p22);
  void *h22 = dlopen(p22, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(h22);
  int (*check22)(void) = (int (*)(void))dlsym(h22, "stub_check_single");
  assert_non_null(check22);
  /* Seen from inside, it is the only runtime: itself is never reported,
   * whatever name it was loaded under. */
  assert_int_equal(check22(), 0);
  /* Seen from here (ompemu's runtime is the test program), it is another
   * runtime, reported with its path. */
  nerrors = 0;
  assert_int_equal(rt_check_single_runtime(), -1);
  assert_int_equal(nerrors, 1);
  assert_non_null(strstr(last, "another OpenMP offload runtime is loaded"));
  assert_non_null(strstr(last, p22));
  assert_non_null(strstr(last, "ompemu-run"));

  /* A second one: each copy now sees the other. */
  copy_stub("libomptarget.so.19.1", p19, sizeof p19);
  void *h19 = dlopen(p19, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(h19);
  assert_int_equal(check22(), -1);
  nerrors = 0;
  assert_int_equal(rt_check_single_runtime(), -1);
  assert_int_equal(nerrors, 2);

  /* Unloaded again: gone from the process, not reported. */
  dlclose(h19);
  dlclose(h22);
  nerrors = 0;
  assert_int_equal(rt_check_single_runtime(), 0);
  assert_int_equal(nerrors, 0);

  /* A plugin-like name is not a runtime. */
  char pp[512];
  copy_stub("libomptarget.rtl.x86_64.so", pp, sizeof pp);
  void *hp = dlopen(pp, RTLD_NOW | RTLD_LOCAL);
  assert_non_null(hp);
  assert_int_equal(rt_check_single_runtime(), 0);
  dlclose(hp);
  unlink(p22);
  unlink(p19);
  unlink(pp);
  rmdir(dir);
  ompemu_set_diag_observer(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),
      cmocka_unit_test(test_second_runtime_found),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
