// A stale declare-target global: the host changes SCALE, no `target update
// to(scale)` follows, and the kernel uses the device copy, which still has
// the initial value.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: stale declare target variable scale: its host copy changed since the device last got it (2 of 8 bytes differ) and kernel __omp_offloading_
// EXPECT-STDERR: _main_l20 at find_stale_global.c:20 starts with the old device copy; `target update to(scale)` sends it
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

#pragma omp declare target
double scale = 1.0;
#pragma omp end declare target

int main(void) {
  double x[8];
  for (int i = 0; i < 8; i++)
    x[i] = i;
  scale = 3.0; /* the device copy keeps 1.0 */
#pragma omp target map(tofrom: x)
  for (int i = 0; i < 8; i++)
    x[i] *= scale;
  printf("x[2] = %g\n", x[2]);
  return 0;
}
