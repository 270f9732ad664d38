// The host changes all of a declare-target table, then sends only its
// first two elements (`target update to(coef[0:2])`); the kernel reads
// coef[5], which the device still holds from before.  A partial update
// leaves the rest of the global stale: found.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: stale declare target variable coef: its host copy changed since the device last got it
// EXPECT-STDERR: _main_l21 at find_stale_global_partial_update.c:21 starts with the old device copy; `target update to(coef)` sends it
// EXPECT-STDOUT: out = 1
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

double coef[8] = {1, 1, 1, 1, 1, 1, 1, 1};
#pragma omp declare target to(coef)

int main(void) {
  double out = 0;
  for (int i = 0; i < 8; i++)
    coef[i] = i;
#pragma omp target update to(coef[0:2])
#pragma omp target map(from: out)
  out = coef[5];
  printf("out = %g\n", out);
  return 0;
}
