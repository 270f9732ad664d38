// A host pointer deep in a mapped variable: an array of structs inside a
// struct, mapped whole, whose pointers were never attached.  The kernel
// follows g.f[2].v; the message names that pointer by its place in the
// variable (from the program's debug information), not by its offset
// alone.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l31 at find_member_nested.c:31 dereferenced host pointer 0x
// EXPECT-STDERR: (the pointer g.f[2].v at offset 40 of g (map to), copied at find_member_nested.c:31) + 0 (read at
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

struct field {
  double *v;
  int k;
};

struct grid {
  int n;
  struct field f[3];
};

/* Static, so the host address in the message is the same every run. */
static double store[3][8];

int main(void) {
  struct grid g = {8, {{store[0], 0}, {store[1], 1}, {store[2], 2}}};
  for (int i = 0; i < 8; i++)
    store[2][i] = i;
  double sum = 0;
#pragma omp target map(to: g) map(tofrom: sum)
  for (int i = 0; i < g.n; i++)
    sum += g.f[2].v[i];
  printf("sum = %g\n", sum);
  return 0;
}
