// map(from:) of a struct member's array, which the kernel reads before
// writing (`l->w[i] *= 0.5` needs tofrom).  clang maps the struct's part
// first (alloc), then the member (from): the finding says map(from), the
// map type the program wrote, and how to fix it.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel __omp_offloading_
// EXPECT-STDERR: read l->w[0:64] (declared at find_member_from_read.c:16) before anything wrote it; it was mapped with map(from) at find_member_from_read.c:17, which gives the device uninitialized memory: map(tofrom:) copies the host's values in
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

typedef struct {
  double w[64];
  double bias;
} layer_t;
static void apply(layer_t *l) {
#pragma omp target map(from: l->w[0:64])
  for (int i = 0; i < 64; i++)
    l->w[i] = l->w[i] * 0.5;
}

int main(void) {
  layer_t l;
  for (int i = 0; i < 64; i++)
    l.w[i] = 2;
  l.bias = 0;
  apply(&l);
  printf("w[0] = %g\n", l.w[0]);
  return 0;
}
