/* Naming a call site (src/runtime/callsite.c): this test's own calls
 * named by file, line and argument from its line table (the program is
 * built with -g, and as test_callsite_dwarf4 with -gdwarf-4, whose file
 * names need the compilation directory: the lookups run from /), a
 * call from a shared library without one (libcmocka), and the argument
 * lists of calls written in C and Fortran, and a function named from the
 * symbol table. */
#define _GNU_SOURCE
#include "config.h"
#include "callsite.h"

#include <dlfcn.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* Returns its return address, as a front door records it. */
__attribute__((noinline)) static const void *omp_probe(int a, int b) {
  __asm__ volatile("" ::"r"(a), "r"(b));
  return __builtin_return_address(0);
}

static void test_own_call(void **state) {
  (void)state;
  int x = 3;
  char want[64];
  const void *ra = omp_probe(x, x + 1); int line = __LINE__;
  struct callsite cs;
  assert_int_equal(chdir("/"), 0);
  callsite_resolve(ra, "omp_probe", &cs);
  snprintf(want, sizeof want, "test_callsite.c:%d", line);
  assert_string_equal(cs.where, want);
  assert_true(cs.has_line);
  assert_int_equal(cs.nargs, 2);
  assert_string_equal(callsite_arg(&cs, 0), "x");
  assert_string_equal(callsite_arg(&cs, 1), "x + 1");
  assert_null(callsite_arg(&cs, 2));
  char where[64];
  callsite_where(ra, where, sizeof where);
  assert_string_equal(where, want);
}

/* A test function returns into libcmocka, a shared library without a line
 * table: named by object and offset from its load address. */
static void test_shared_library_no_line_table(void **state) {
  (void)state;
  const void *ra = __builtin_return_address(0);
  Dl_info info;
  assert_true(dladdr(ra, &info) != 0);
  struct callsite cs;
  callsite_resolve(ra, "omp_probe", &cs);
  char want[1100];
  const char *base = strrchr(info.dli_fname, '/');
  snprintf(want, sizeof want, "%s+0x%lx", base ? base + 1 : info.dli_fname,
           (unsigned long)((uintptr_t)ra - 1 - (uintptr_t)info.dli_fbase));
  assert_string_equal(cs.where, want);
  assert_false(cs.has_line);
  assert_int_equal(cs.nargs, 0);
}

/* A static function (not in the dynamic symbols) named from the symbol
 * table; an address inside a function, and NULL, are not. */
static void test_function_name(void **state) {
  (void)state;
  char name[64] = "x";
  assert_int_equal(callsite_function((const void *)omp_probe, name,
                                     sizeof name), 1);
  assert_string_equal(name, "omp_probe");
  /* Asked again: the cache answers the same. */
  assert_int_equal(callsite_function((const void *)omp_probe, name,
                                     sizeof name), 1);
  assert_string_equal(name, "omp_probe");
  assert_int_equal(callsite_function((const char *)(uintptr_t)omp_probe + 1,
                                     name, sizeof name), 0);
  assert_int_equal(callsite_function(NULL, name, sizeof name), 0);
}

static void test_unknown_address(void **state) {
  (void)state;
  struct callsite cs;
  callsite_resolve(NULL, "omp_probe", &cs);
  assert_string_equal(cs.where, "");
  assert_int_equal(cs.nargs, 0);
  callsite_resolve((const void *)16, "omp_probe", &cs);
  assert_string_equal(cs.where, "");
}

/* The arguments of API in TEXT from byte COL0, with FORTRAN set. */
static int split(const char *text, size_t col0, const char *api, int fortran,
                 struct callsite *cs) {
  memset(cs, 0, sizeof *cs);
  cs->fortran = fortran;
  return callsite_split(text, col0, api, cs);
}

static void test_split_c(void **state) {
  (void)state;
  struct callsite cs;
  assert_int_equal(split("  int rc = omp_target_memcpy(d, h, sizeof h, 0, 0, "
                         "host, dev);\n", 0, "omp_target_memcpy", 0, &cs), 7);
  assert_string_equal(cs.args[0], "d");
  assert_string_equal(cs.args[2], "sizeof h");
  assert_string_equal(cs.args[6], "dev");
  assert_int_equal(split("omp_target_free(arr[idx(i, j)], f(a, \"x,)\"));",
                         0, "omp_target_free", 0, &cs), 2);
  assert_string_equal(cs.args[0], "arr[idx(i, j)]");
  assert_string_equal(cs.args[1], "f(a, \"x,)\")");
  /* two calls on one line: the column picks the second */
  assert_int_equal(split("omp_target_free(a, 0); omp_target_free(b, 0);", 23,
                         "omp_target_free", 0, &cs), 2);
  assert_string_equal(cs.args[0], "b");
  /* over lines, with comments */
  assert_int_equal(split("omp_target_free(p, /* dev, */\n     dev); // x,y\n",
                         0, "omp_target_free", 0, &cs), 2);
  assert_string_equal(cs.args[1], "dev");
  assert_int_equal(split("x = !omp_target_is_present(!q ? a : b, d);", 0,
                         "omp_target_is_present", 0, &cs), 2);
  assert_string_equal(cs.args[0], "!q ? a : b");
  assert_int_equal(split("p = &a; omp_target_free(&p[1], d);", 0,
                         "omp_target_free", 0, &cs), 2);
  assert_string_equal(cs.args[0], "&p[1]");
}

static void test_split_not_found(void **state) {
  (void)state;
  struct callsite cs;
  assert_int_equal(split("free(p);", 0, "omp_target_free", 0, &cs), 0);
  assert_int_equal(split("my_omp_target_free(p, 0);", 0, "omp_target_free",
                         0, &cs), 0);
  assert_int_equal(split("omp_target_free_all(p);", 0, "omp_target_free", 0,
                         &cs), 0);
  assert_int_equal(split("omp_target_free(p,\n", 0, "omp_target_free", 0,
                         &cs), 0);
  assert_null(callsite_arg(&cs, 0));
  assert_int_equal(split("", 5, "omp_target_free", 0, &cs), 0);
}

static void test_split_fortran(void **state) {
  (void)state;
  struct callsite cs;
  assert_int_equal(split("  call OMP_TARGET_FREE(dbuf, &   ! first\n"
                         "     & dev)  ! twice\n", 2, "omp_target_free", 1,
                         &cs), 2);
  assert_string_equal(cs.args[0], "dbuf");
  assert_string_equal(cs.args[1], "dev");
  assert_int_equal(split("rc = omp_target_memcpy(c_loc(h), d, n, 0_c_size_t, "
                         "0_c_size_t, host, dev)", 0, "omp_target_memcpy", 1,
                         &cs), 7);
  assert_string_equal(cs.args[0], "c_loc(h)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_own_call),
      cmocka_unit_test(test_shared_library_no_line_table),
      cmocka_unit_test(test_unknown_address),
      cmocka_unit_test(test_function_name),
      cmocka_unit_test(test_split_c),
      cmocka_unit_test(test_split_not_found),
      cmocka_unit_test(test_split_fortran),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
