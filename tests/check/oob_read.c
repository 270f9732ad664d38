// A kernel reads one element past the end of a mapped array: in check mode
// the block ends at a guard page, so the read faults and the run ends with
// one message naming the kernel and the block, and the check exit status.
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: device 0: kernel __omp_offloading_
// EXPECT-STDERR: _main_l18 at oob_read.c:18: invalid read of device memory at 0x0000550000005000, just past the end of the live data block [0x0000550000003060, 0x0000550000005000) of 8096 bytes
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1012;
  double *a = malloc(n * sizeof *a), sum = 0;
  for (int i = 0; i < n; i++)
    a[i] = i;
  printf("before the kernel\n");
  fflush(stdout);
#pragma omp target map(to: a[0:n]) map(tofrom: sum)
  for (int i = 0; i <= n; i++) /* one past the end */
    sum += a[i];
  printf("sum %g: the read past the end was not caught\n", sum);
  free(a);
  return 0;
}
