// A stale declare-target global read by a kernel of eight device threads
// that read its neighbours on the same page over and over first: every
// run reports it, once.  A kernel of eight threads that reads only the
// neighbours comes first: it is no finding.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: stale declare target variable rate: its host copy changed since the device last got it (
// EXPECT-STDERR: _main_l33 at find_stale_global_threads.c:33 starts with the old device copy; `target update to(rate)` sends it
// EXPECT-STDERR: ompemu: check: 1 finding
// EXPECT-STDOUT: s[7] = 4100 t[7] = 4102
// RUN-SAME-STDERR-TIMES: 9
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
double before = 1.0;
double rate = 2.0;
double after = 3.0;
#pragma omp end declare target

int main(void) {
  double s[8] = {0}, t[8] = {0};
  rate = 5.0; /* the device copy keeps 2.0 */
#pragma omp target parallel num_threads(8) map(tofrom: s)
  {
    int id = omp_get_thread_num();
    double v = 0;
    for (int k = 0; k < 1000; k++)
      v += before + after;
    s[id] = v + 100;
  }
  printf("s[7] = %g ", s[7]);
#pragma omp target parallel num_threads(8) map(tofrom: t)
  {
    int id = omp_get_thread_num();
    double v = 0;
    for (int k = 0; k < 1000; k++)
      v += before + after;
    t[id] = v + 100 + rate; /* the old RATE: 2 */
  }
  printf("t[7] = %g\n", t[7]);
  return 0;
}
