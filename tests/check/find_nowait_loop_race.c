// A loop of nowait target regions of one construct, each updating all of
// x, with no depend: a race.  ompemu holds them and runs them one at a
// time in the order the program created their tasks (not the order the
// hidden helper threads bring them in), so the program's result is the
// same every run: 27, what the loop gives run in order.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: race between nowait target regions: two regions of the construct at find_nowait_loop_race.c:19 (kernel __omp_offloading_
// EXPECT-STDOUT: x[0] = 27
// RUN-SAME-STDERR-TIMES: 4
#include <stdio.h>

int main(void) {
  double x[256];
  for (int i = 0; i < 256; i++)
    x[i] = 1;
  for (int it = 0; it < 4; it++) {
    /* no depend(inout: x): the four regions race */
#pragma omp target map(tofrom: x) nowait
    for (int i = 0; i < 256; i++)
      x[i] = x[i] * 2 + it;
  }
#pragma omp taskwait
  printf("x[0] = %g\n", x[0]);
  return 0;
}
