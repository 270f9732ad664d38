// Use after exit data through a copy a kernel made: a kernel stores the
// attached member s.p in a declare-target global; the struct and its
// pointee are unmapped (the member's own device copy no longer holds the
// address), and a later kernel reads through the global.  The freed block
// is protected before that kernel all the same: the checker looks for the
// address in every live block and in the image's data, not only where it
// was copied to.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: find_use_after_free_global_copy.c:30: invalid read of device memory at 0x
// EXPECT-STDERR: inside the freed data block [0x
// EXPECT-STDERR: (the device copy of variable s.p[0:64] (declared at find_use_after_free_global_copy.c:22), removed at find_use_after_free_global_copy.c:28)
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

typedef struct { double *p; } S;
double *gp;
#pragma omp declare target(gp)

int main(void) {
  S s;
  s.p = malloc(64 * sizeof(double));
  for (int i = 0; i < 64; i++) s.p[i] = i;
#pragma omp target enter data map(to: s, s.p[0:64])
#pragma omp target
  gp = s.p;
#pragma omp target exit data map(delete: s.p[0:64], s)
  int x = 0;
#pragma omp target map(from: x)
  x = gp[5] == 5.0 ? 1 : 2;
  printf("x=%d\n", x);
  free(s.p);
  return 0;
}
