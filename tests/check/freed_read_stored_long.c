// A kernel reads device memory freed with omp_target_free through a
// device pointer stored far into a long mapped array (2 KiB of host
// pointers' room, the device pointer at index 200): in check mode the
// runtime's one pass over the copy finds the leading words free of
// addresses and the device addresses after them are noted, so the freed
// block is inaccessible from the next kernel on, as with a short array
// (freed_read_stored.c).
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: device 0: kernel __omp_offloading_
// EXPECT-STDERR: inside the freed data block
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

enum { N = 256, AT = 200 };

int main(void) {
  int dev = omp_get_default_device();
  static double *table[N];
  table[AT] = omp_target_alloc(64 * sizeof(double), dev);
#pragma omp target enter data map(to: table[0:N])
  omp_target_free(table[AT], dev);
  double x = 0;
#pragma omp target map(from: x)
  x = table[AT][41];
  printf("read %g from freed device memory: not caught\n", x);
  return 0;
}
