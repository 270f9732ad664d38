/* Naming the part of a variable at an offset (src/runtime/dwarf_member.c)
 * from this test's own debug information: it is built with -g, and as
 * test_dwarf_member_dwarf4 with -gdwarf-4 (strings by offset, not by
 * index).  Members, nested structs, arrays in structs, two-dimensional
 * arrays, sections of a pointer, typedefs and qualifiers, and the cases
 * that must give no name; the element sizes of an array's dimensions;
 * which bytes are padding or a bitfield's. */
#include "config.h"
#include "dwarf_member.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

struct inner {
  double *v;
  int k;
};

typedef struct {
  int n;
  struct inner f[3];
  const struct inner *volatile last;
  int m[2][3];
} grid_t;

union either {
  double *d;
  int *i;
};

/* The variables looked up: globals, so that they stay in the debug
 * information whatever the optimization. */
grid_t g_grid; static const int g_grid_line = __LINE__;
double *g_rows[4]; static const int g_rows_line = __LINE__;
union either g_union; static const int g_union_line = __LINE__;
struct inner g_twice;
double g_mat[8][4][2]; static const int g_mat_line = __LINE__;
struct inner *g_ptr; static const int g_ptr_line = __LINE__;

/* Padding, a long double, bitfields (dw_byte_kind). */
struct padded {
  char tag;
  long double v;
  int id;
  _Alignas(32) double w[2];
  unsigned kind : 4, level : 4, code : 24;
  char last;
};
struct padded g_pad[4]; static const int g_pad_line = __LINE__;

static const char *self(void) { return "/proc/self/exe"; }

static void expect(const char *expr, int line, uint64_t off,
                   const char *want) {
  char out[128];
  int found = dw_member_name(self(), expr, (unsigned)line, off, out,
                             sizeof out);
  if (!want) {
    assert_int_equal(found, 0);
    assert_string_equal(out, "");
    return;
  }
  assert_int_equal(found, 1);
  assert_string_equal(out, want);
}

static void test_members(void **state) {
  (void)state;
  (void)g_grid.n;
  expect("g_grid", g_grid_line, 0, "g_grid.n");
  expect("g_grid", g_grid_line, offsetof(grid_t, f), "g_grid.f[0].v");
  expect("g_grid", g_grid_line,
         offsetof(grid_t, f) + 2 * sizeof(struct inner) +
             offsetof(struct inner, k),
         "g_grid.f[2].k");
  /* A typedef'd, const, volatile pointer member. */
  expect("g_grid", g_grid_line, offsetof(grid_t, last), "g_grid.last");
  /* Row-major: m[1][2] is the sixth int. */
  expect("g_grid", g_grid_line, offsetof(grid_t, m) + 5 * sizeof(int),
         "g_grid.m[1][2]");
  /* Any line when the caller knows none. */
  expect("g_grid", 0, 0, "g_grid.n");
}

static void test_sections(void **state) {
  (void)state;
  /* What a pointer points to (the checker names clang's implicit `this`
   * so): its members are p->m. */
  (void)g_ptr;
  expect("*g_ptr", g_ptr_line, offsetof(struct inner, k), "g_ptr->k");
  expect("*g_ptr", g_ptr_line, 0, "g_ptr->v");
  expect("g_rows[0:4]", g_rows_line, 8, "g_rows[1]");
  expect("g_rows[2:2]", g_rows_line, 8, "g_rows[3]");
  expect("g_rows", g_rows_line, 24, "g_rows[3]");
}

static void test_no_name(void **state) {
  (void)state;
  /* A union: which member is meant cannot be told. */
  expect("g_union", g_union_line, 0, NULL);
  /* The wrong line, an unknown name, an expression, a scalar. */
  expect("g_grid", g_grid_line + 1, 0, NULL);
  expect("no_such_variable", 0, 0, NULL);
  expect("g_rows[0].x", 0, 0, NULL);
  expect("g_grid.f", g_grid_line, 0, NULL);
  expect("g_rows[i:4]", g_rows_line, 8, NULL);
  /* Past the variable's end. */
  expect("g_grid", g_grid_line, sizeof(grid_t) + 8, NULL);
  /* No such file, or a file without debug information. */
  char out[16] = "x";
  assert_int_equal(dw_member_name("/nonexistent", "g_grid", 0, 0, out,
                                  sizeof out), 0);
  assert_string_equal(out, "");
  assert_int_equal(dw_member_name("/dev/null", "g_grid", 0, 0, out,
                                  sizeof out), 0);
}

/* Which bytes are data, padding, or a bitfield's storage unit. */
static void test_byte_kinds(void **state) {
  (void)state;
  (void)g_pad[0].tag;
  const char *e = "g_pad[0:4]";
  unsigned l = (unsigned)g_pad_line;
  size_t el = sizeof(struct padded);
  assert_int_equal(dw_byte_kind(self(), e, l, 0), DW_BYTE_DATA);
  assert_int_equal(dw_byte_kind(self(), e, l, 1), DW_BYTE_PADDING);
  assert_int_equal(dw_byte_kind(self(), e, l, offsetof(struct padded, v)),
                   DW_BYTE_DATA);
  assert_int_equal(dw_byte_kind(self(), e, l, offsetof(struct padded, v) + 9),
                   DW_BYTE_DATA);
  assert_int_equal(
      dw_byte_kind(self(), e, l, offsetof(struct padded, v) + 10),
      DW_BYTE_PADDING); /* x87: ten bytes of sixteen */
  assert_int_equal(dw_byte_kind(self(), e, l, offsetof(struct padded, id) + 4),
                   DW_BYTE_PADDING);
  assert_int_equal(dw_byte_kind(self(), e, l, offsetof(struct padded, w) + 8),
                   DW_BYTE_DATA);
  size_t bits = offsetof(struct padded, w) + sizeof g_pad[0].w;
  assert_int_equal(dw_byte_kind(self(), e, l, bits), DW_BYTE_BITFIELD);
  assert_int_equal(dw_byte_kind(self(), e, l, bits + 3), DW_BYTE_BITFIELD);
  assert_int_equal(dw_byte_kind(self(), e, l, offsetof(struct padded, last)),
                   DW_BYTE_DATA);
  assert_int_equal(dw_byte_kind(self(), e, l, el - 1), DW_BYTE_PADDING);
  /* Of the third element, the same; the whole array too. */
  assert_int_equal(dw_byte_kind(self(), e, l, 2 * el + 1), DW_BYTE_PADDING);
  assert_int_equal(dw_byte_kind(self(), "g_pad", l, 2 * el), DW_BYTE_DATA);
  /* A union, no such variable, no such file: not known. */
  assert_int_equal(dw_byte_kind(self(), "g_union", g_union_line, 0),
                   DW_BYTE_UNKNOWN);
  assert_int_equal(dw_byte_kind(self(), "nothing", 0, 0), DW_BYTE_UNKNOWN);
  assert_int_equal(dw_byte_kind("/nonexistent", e, l, 0), DW_BYTE_UNKNOWN);
}

/* The element size of each dimension of an array (what a non-contiguous
 * update's descriptors leave out). */
static void test_array_units(void **state) {
  (void)state;
  int64_t u[3] = {0};
  assert_int_equal(dw_array_units(self(), "g_mat[0:8][0:4][0:2]",
                                  (unsigned)g_mat_line, u, 3), 1);
  assert_int_equal(u[0], (int64_t)sizeof g_mat[0]);
  assert_int_equal(u[1], (int64_t)sizeof g_mat[0][0]);
  assert_int_equal(u[2], (int64_t)sizeof(double));
  /* Not an array of that many dimensions, not an array, no such line. */
  assert_int_equal(dw_array_units(self(), "g_mat[0:8][0:4]", 0, u, 2), 0);
  assert_int_equal(dw_array_units(self(), "g_twice[0:1]", 0, u, 1), 0);
  assert_int_equal(dw_array_units(self(), "g_mat[1:2]",
                                  (unsigned)g_mat_line + 1, u, 3), 0);
  /* Not a section. */
  assert_int_equal(dw_array_units(self(), "g_mat", 0, u, 3), 0);
  (void)g_mat[0][0][0];
}

/* A name that does not fit is no name: cut, it would name another part. */
static void test_too_long(void **state) {
  (void)state;
  char out[8];
  assert_int_equal(dw_member_name(self(), "g_twice", 0,
                                  offsetof(struct inner, k), out, sizeof out),
                   0);
  assert_string_equal(out, "");
  char fits[10];
  assert_int_equal(dw_member_name(self(), "g_twice", 0,
                                  offsetof(struct inner, k), fits,
                                  sizeof fits),
                   1);
  assert_string_equal(fits, "g_twice.k");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_members),
      cmocka_unit_test(test_sections),
      cmocka_unit_test(test_no_name),
      cmocka_unit_test(test_too_long),
      cmocka_unit_test(test_array_units),
      cmocka_unit_test(test_byte_kinds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
