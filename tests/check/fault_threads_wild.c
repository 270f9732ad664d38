// Without --check: eight device threads each read far past a mapped array,
// outside the device's memory; thread 0 reads last (it works first).  The
// fault's default action ends the process (SIGSEGV) after one message, the
// lowest thread's, the same every run.
// EXPECT-EXIT: 139
// EXPECT-STDERR: _main_l21: invalid read at 0x0000550080000200, which is not device memory
// RUN-SAME-STDERR-TIMES: 9
// SKIP-SANITIZED: the sanitizer's handler takes the fault on its own thread
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
    s[t] = a[(1L << 28) + 512 * t]; /* 2 GiB + 4 KiB * t past a */
  }
  printf("s[0] %g: the reads were not caught\n", s[0]);
  free(a);
  return 0;
}
