// A kernel reads device memory freed with omp_target_free through a
// device pointer stored in mapped data (no kernel argument points into
// the freed block): the pointer was copied to the device while the block
// was live, so in check mode the block is inaccessible from the next
// kernel on, and the message names the freed block and the offset.
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: device 0: kernel __omp_offloading_
// EXPECT-STDERR: invalid read of device memory at 0x0000550000001f48, inside the freed data block [0x0000550000001e00, 0x0000550000002000) of 512 bytes, at offset 328
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  double *table[4] = {0};
  table[1] = omp_target_alloc(64 * sizeof(double), dev);
#pragma omp target enter data map(to: table[0:4])
  omp_target_free(table[1], dev);
  double x = 0;
#pragma omp target map(from: x)
  x = table[1][41];
  printf("read %g from freed device memory: not caught\n", x);
  return 0;
}
