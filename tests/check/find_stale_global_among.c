// A stale declare-target global among others on the same page: the first
// kernel reads only the neighbours (no finding: it never reads RATE), the
// second reads RATE after reading a neighbour, and is the one reported.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: stale declare target variable rate: its host copy changed since the device last got it (
// EXPECT-STDERR: _main_l31 at find_stale_global_among.c:31 starts with the old device copy; `target update to(rate)` sends it
// EXPECT-STDERR: ompemu: check: 1 finding
// RUN-SAME-STDERR-TIMES: 4
#include <stdio.h>

#pragma omp declare target
double before = 1.0;
double rate = 2.0;
double after = 4.0;
#pragma omp end declare target

int main(void) {
  double x[8];
  for (int i = 0; i < 8; i++)
    x[i] = i;
  rate = 3.0; /* the device copy keeps 2.0 */
#pragma omp target map(tofrom: x)
  for (int i = 0; i < 8; i++)
    x[i] = x[i] * before + after; /* never reads RATE */
  printf("x[2] = %g\n", x[2]);
  double y = 0;
#pragma omp target map(tofrom: y)
  y = before + after;
  printf("y = %g\n", y);
#pragma omp target map(tofrom: x)
  for (int i = 0; i < 8; i++)
    x[i] = x[i] * before + rate; /* the old RATE: 2 */
  printf("x[2] = %g\n", x[2]);
  return 0;
}
