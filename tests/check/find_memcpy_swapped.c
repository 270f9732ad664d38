// omp_target_memcpy with the device numbers swapped: D is device memory but
// is given as the destination on the host.  Refused with a message in the
// API's words, in every mode, naming the call's line and the variables.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at find_memcpy_swapped.c:19: dst d = 0x0000550000
// EXPECT-STDERR: is device 0 memory (800 bytes, allocated by omp_target_alloc at find_memcpy_swapped.c:17) but dst_device_num (host) is the host: nothing copied
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double h[100];
  for (int i = 0; i < 100; i++)
    h[i] = i;
  double *d = omp_target_alloc(sizeof h, dev);
  /* dst_device_num and src_device_num swapped: */
  int rc = omp_target_memcpy(d, h, sizeof h, 0, 0, host, dev);
  printf("omp_target_memcpy returned %d\n", rc);
  omp_target_free(d, dev);
  return 0;
}
