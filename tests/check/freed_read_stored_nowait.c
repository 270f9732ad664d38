// A kernel reads device memory freed with omp_target_free through a
// device pointer stored in mapped data by a `nowait` enter data (a copy
// left on the device's queue): the pointer's copy is noted when it is
// queued, so in check mode the freed block is inaccessible from the next
// kernel on, as with a synchronous copy (freed_read_stored.c).
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: device 0: kernel __omp_offloading_
// EXPECT-STDERR: inside the freed data block
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  double *table[4] = {0};
  table[1] = omp_target_alloc(64 * sizeof(double), dev);
#pragma omp target enter data map(to: table[0:4]) nowait
#pragma omp taskwait
  omp_target_free(table[1], dev);
  double x = 0;
#pragma omp target map(from: x)
  x = table[1][41];
  printf("read %g from freed device memory: not caught\n", x);
  return 0;
}
