// A struct with two pointers, one of them mapped as a section and the
// other forgotten: the kernel reads through the forgotten one, which
// still holds the host's address.  The message names the struct, the
// pointer's offset and the line; it gives no map type of its own for the
// struct's block when the struct was mapped alloc around its members
// (clang 14 to 19 lower `map(to: p) map(tofrom: p.y[0:n])` so), where it
// used to say "(map alloc)" of a struct the program mapped `to`.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: dereferenced host pointer 0x
// EXPECT-STDERR: (the pointer p.x at offset 8 of p
// EXPECT-STDERR: copied at find_member_forgotten.c:27) + 0 (read at
// EXPECT-NOT-STDERR: (map alloc)
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n;
  double *x, *y;
} pair_t;

int main(void) {
  pair_t p = {128, malloc(128 * sizeof(double)), malloc(128 * sizeof(double))};
  for (int i = 0; i < p.n; i++)
    p.x[i] = i, p.y[i] = 0;
#pragma omp target map(to: p) map(tofrom: p.y[0:p.n])
  for (int i = 0; i < p.n; i++)
    p.y[i] = p.x[i] * 2;
  printf("%g\n", p.y[3]);
  free(p.x);
  free(p.y);
  return 0;
}
