// A kernel reads device memory that was never allocated (a pointer far past
// a block): in check mode the unused part of the data range is PROT_NONE,
// so it does not read as zeros.
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: invalid read of device memory at 0x0000550040001000, in never-allocated device memory of the data range [0x0000550000000000, 0x0000550400000000)
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  char *p = omp_target_alloc(4096, dev);
  char *far = p + (1 << 30);
  int x = 0;
#pragma omp target is_device_ptr(far) map(from: x)
  x = far[0];
  printf("read %d from never-allocated device memory: not caught\n", x);
  omp_target_free(p, dev);
  return 0;
}
