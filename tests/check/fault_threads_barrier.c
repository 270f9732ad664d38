// Two of four device threads read past the end of a mapped array before a
// barrier (thread 3 first, thread 2 after some work); threads 0 and 1 wait
// at the barrier for them.  In check mode the faulting threads wait too,
// and once every thread waits, the lowest faulting thread's fault (thread
// 2's) is reported: the same message every run, and no deadlock.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l23 at fault_threads_barrier.c:23: invalid read of device memory at 0x0000550000007800, 2048 bytes past the end of the live data block [0x0000550000005000, 0x0000550000007000) of 8192 bytes
// EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
// RUN-SAME-STDERR-TIMES: 4
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1024;
  double *a = malloc(n * sizeof *a), s[4] = {0};
  for (int i = 0; i < n; i++)
    a[i] = i;
  printf("before the kernel\n");
  fflush(stdout);
  volatile double busy = 0;
#pragma omp target parallel num_threads(4) map(to: a[0:n]) map(tofrom: s, busy)
  {
    int t = omp_get_thread_num();
    if (t == 2)
      for (int k = 0; k < 5000000; k++)
        busy += k;
    if (t >= 2)
      s[t] = a[n + 128 * t]; /* thread t: 1024 * t bytes past the end */
#pragma omp barrier
    s[t] += a[t];
  }
  printf("s[0] %g: the reads past the end were not caught\n", s[0]);
  free(a);
  return 0;
}
