// Eight device threads each read past the end of a mapped array, at eight
// different offsets; thread 0 reads last (it works first).  In check mode
// the fault reported is the lowest thread's, whatever the order the
// threads faulted in: the same message every run, and only one.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l22 at fault_threads_oob.c:22: invalid read of device memory at 0x0000550000007000, just past the end of the live data block [0x0000550000005000, 0x0000550000007000) of 8192 bytes
// EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
// RUN-SAME-STDERR-TIMES: 9
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1024;
  double *a = malloc(n * sizeof *a), s[8] = {0};
  for (int i = 0; i < n; i++)
    a[i] = i;
  printf("before the kernel\n");
  fflush(stdout);
  volatile double busy = 0;
#pragma omp target parallel num_threads(8) map(to: a[0:n]) map(tofrom: s, busy)
  {
    int t = omp_get_thread_num();
    if (t == 0)
      for (int k = 0; k < 5000000; k++)
        busy += k;
    s[t] = a[n + 16 * t]; /* thread t: 128 * t bytes past the end */
  }
  printf("s[0] %g: the reads past the end were not caught\n", s[0]);
  free(a);
  return 0;
}
