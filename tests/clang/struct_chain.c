// Chained member maps a->b->c[0:n]: each pointer along the chain is
// attached on the device (PTR_AND_OBJ), and the host keeps its pointers.
#include "check.h"

struct C { int n; int *vals; };
struct B { struct C *c; int tag; };
struct A { struct B *b; };

int main(void) {
  struct C c = {6, malloc(6 * sizeof(int))};
  struct B b = {&c, 9};
  struct A a0 = {&b};
  struct A *a = &a0;
  int *host_vals = c.vals;
  for (int i = 0; i < 6; i++) c.vals[i] = i;
#pragma omp target map(to: a[0:1]) map(to: a->b[0:1]) map(to: a->b->c[0:1]) \
    map(tofrom: a->b->c->vals[0:6])
  {
    for (int i = 0; i < a->b->c->n; i++) a->b->c->vals[i] += 10 * a->b->tag;
  }
  CHECK(c.vals == host_vals && a->b == &b && b.c == &c, "host pointers changed");
  for (int i = 0; i < 6; i++) CHECK(c.vals[i] == i + 90, "vals[%d] = %d", i, c.vals[i]);
#if __clang_major__ < 22
  /* The same chain as a single member expression: clang up to 19 maps the
   * pointers along it.  Clang 22 (OpenMP 6.0) maps only the pointee and
   * attaches it to a->b->c->vals only where that pointer is mapped, which
   * it is not here: device code would follow host pointers (LLVM 22's own
   * runtime leaves 90 + i, and ompemu-run --check reports the host
   * dereference), so the region is not portable to clang 22. */
#pragma omp target map(tofrom: a->b->c->vals[0:6])
  for (int i = 0; i < 6; i++) a->b->c->vals[i] -= 90;
  CHECK(c.vals == host_vals, "host pointer changed (2)");
  for (int i = 0; i < 6; i++) CHECK(c.vals[i] == i, "vals[%d] = %d (2)", i, c.vals[i]);
#endif
  free(host_vals);
  return tc_done();
}
