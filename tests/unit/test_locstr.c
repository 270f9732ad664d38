/* The location-string fields of src/runtime/locstr.h: which field of a
 * map name is the file (clang: expression first; flang: file first), the
 * expression, and the file suffixes and paths that make a field a file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "locstr.h"

static void test_clang_and_flang_order(void **state) {
  (void)state;
  char b[64];
  assert_int_equal(map_name_file_field(";holder.p[0:512];att.c;4;38;;"), 1);
  assert_string_equal(map_name_expr(";holder.p[0:512];att.c;4;38;;", b, sizeof b),
                      "holder.p[0:512]");
  /* Clang's member expression "s.c" looks like a file: clang's order. */
  assert_int_equal(map_name_file_field(";s.c;prog.c;7;1;;"), 1);
  assert_int_equal(map_name_file_field(";prog.f90;a(1:n);3;9;;"), 0);
  assert_string_equal(map_name_expr(";prog.f90;a(1:n);3;9;;", b, sizeof b), "a(1:n)");
  assert_null(map_name_expr(";prog.f90;unknown;3;9;;", b, sizeof b));
  assert_null(map_name_expr(";;prog.c;3;9;;", b, sizeof b));
  assert_null(map_name_expr("holder", b, sizeof b));
  assert_null(map_name_expr(NULL, b, sizeof b));
  /* Only the whole field "unknown" means none, whatever the buffer. */
  char small[8];
  assert_true(map_name_has_expr(";unknown_x;p.c;1;1;;"));
  assert_non_null(map_name_expr(";unknown_x;p.c;1;1;;", small, sizeof small));
  assert_false(map_name_has_expr(";p.f90;unknown;1;1;;"));
  assert_true(map_name_has_expr(";s.c;prog.c;7;1;;"));
  assert_false(map_name_has_expr(NULL));
}

static void test_file_fields(void **state) {
  (void)state;
  static const char *const files[] = {
      ";a.c;", ";a.cc;", ";a.cpp;", ";a.cxx;", ";a.C;", ";a.h;", ";a.hpp;",
      ";a.f;", ";a.F;", ";a.f90;", ";a.F90;", ";a.f95;", ";a.F95;",
      ";a.f03;", ";a.F03;", ";a.f08;", ";a.F08;", ";a.for;", ";a.ftn;",
      ";a.cu;", ";dir/noext;", ";/abs/x.txt;", ";x.y.c", ";.c;"};
  static const char *const others[] = {
      ";s.p;", ";a.cpp2;", ";a;", ";;", ";a.;", ";a.c2;", ";x.c.p;",
      ";holder.p[0:512];", ";a.CU;", "a.c", "", ";a.fortran;"};
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    assert_true(loc_field_is_file(files[i], 0));
  for (size_t i = 0; i < sizeof others / sizeof *others; i++)
    assert_false(loc_field_is_file(others[i], 0));
  assert_false(loc_field_is_file(NULL, 0));
  assert_true(loc_field_is_file(";x;y;src/p.c;", 2));
  assert_false(loc_field_is_file(";x;y", 2));
}

/* A field is looked at as its first 511 bytes (what loc_field copies). */
static void test_long_field(void **state) {
  (void)state;
  char s[700];
  s[0] = ';';
  memset(s + 1, 'x', 600);
  memcpy(s + 1 + 509, ".c", 2); /* bytes 509-510 of the field: kept */
  strcpy(s + 601, ";");
  assert_true(loc_field_is_file(s, 0));
  memset(s + 1, 'x', 600);
  memcpy(s + 1 + 598, ".c", 2); /* past byte 511: cut off */
  assert_false(loc_field_is_file(s, 0));
  memcpy(s + 1 + 520, "/", 1);
  assert_false(loc_field_is_file(s, 0));
  memcpy(s + 1 + 100, "/", 1);
  assert_true(loc_field_is_file(s, 0));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_clang_and_flang_order),
      cmocka_unit_test(test_file_fields),
      cmocka_unit_test(test_long_field),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
