// A kernel reads device memory through a pointer freed with
// omp_target_free: in check mode freed blocks stay PROT_NONE (quarantine),
// and the message names the freed block and the offset.
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: invalid read of device memory at 0x0000550000001f48, inside the freed data block [0x0000550000001e00, 0x0000550000002000) of 512 bytes, at offset 328
// EXPECT-STDERR: emu: error: device 0: kernel __omp_offloading_
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  double *p = omp_target_alloc(64 * sizeof(double), dev);
  omp_target_free(p, dev);
  double x = 0;
#pragma omp target is_device_ptr(p) map(from: x)
  x = p[41];
  printf("read %g from freed device memory: not caught\n", x);
  return 0;
}
