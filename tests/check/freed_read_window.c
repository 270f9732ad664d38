// A kernel reads device memory freed with omp_target_free through a
// pointer an earlier kernel stored in a declare-target global: the one
// path by which a freed block is not made inaccessible before the next
// kernel (src/plugins/emu/README.md, check mode).  It reads the check-mode
// poison, a NaN, never zeros or stale data, which the checker reports as
// uninitialised memory copied back; 64 kernels after the free the block
// faults.
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-EXIT: 99
// EXPECT-STDOUT: first read: -nan
// EXPECT-STDERR: ompemu: check: uninitialized device memory copied to the host: 8 of 8 bytes of x
// EXPECT-STDERR: invalid read of device memory at 0x0000550000001f48, inside the freed data block [0x0000550000001e00, 0x0000550000002000) of 512 bytes, at offset 328
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
double *keep;
#pragma omp end declare target

int main(void) {
  int dev = omp_get_default_device();
  double *p = omp_target_alloc(64 * sizeof(double), dev);
#pragma omp target is_device_ptr(p)
  keep = p;
  omp_target_free(p, dev);
  double x = 0;
#pragma omp target map(from: x)
  x = keep[41];
  printf("first read: %g\n", x);
  fflush(stdout);
  for (int i = 0; i < 64; i++) {
#pragma omp target map(from: x)
    x = keep[41];
  }
  printf("read %g 64 kernels later: not caught\n", x);
  return 0;
}
