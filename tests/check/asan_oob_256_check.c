// Host and device code built with AddressSanitizer, check mode: a kernel
// reads one element past the end of an array of 8192 bytes (a multiple of
// 256).  The check-mode block ends at a guard page, so the read faults and
// the emu plugin's handler, not ASan's, reports it with the check status.
// CFLAGS: -fsanitize=address
// REQUIRES: address
// RUN-ENV: OMPEMU_CHECK=1 ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
// EXPECT-EXIT: 99
// EXPECT-STDERR: invalid read of device memory at 0x0000550000005000, just past the end of the live data block [0x0000550000003000, 0x0000550000005000) of 8192 bytes (just past the end of variable a[0:n]
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1024;
  double *a = malloc(n * sizeof *a), sum = 0;
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target map(to: a[0:n]) map(tofrom: sum)
  for (int i = 0; i <= n; i++) /* one past the end */
    sum += a[i];
  printf("sum %g: the read past the end was not caught\n", sum);
  free(a);
  return 0;
}
