/* Timeline test program: a 'present' map of data that is not mapped, with
 * offloading mandatory: LLVM 14's fatal error path (abort).  The timeline
 * written before the abort must be valid and show the constructs before
 * it. */
// CFLAGS: -fopenmp-version=51
#include <stdio.h>

static int zeta[8], eta[8];

int main(void) {
#pragma omp target enter data map(to: zeta)
#pragma omp target map(present, tofrom: eta)
  eta[0] = 1;
  printf("fatal: not reached\n");
  return 0;
}
