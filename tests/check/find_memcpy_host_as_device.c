// omp_target_memcpy given host memory where its device number says device
// memory: H is a host array, named as the destination on device 0 and
// then as the source.  Refused before any byte moves, in every mode (here
// the default one), with a message in the API's words that names the
// call's line, the variable and why the address is not device memory.
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at find_memcpy_host_as_device.c:23: dst h = 0x
// EXPECT-STDERR: (800 bytes) is not inside device 0 memory, yet dst_device_num (dev) is device 0: it lies outside device 0's data range [0x0000550000000000,
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at find_memcpy_host_as_device.c:24: src h = 0x
// EXPECT-STDERR: (800 bytes) is not inside device 0 memory, yet src_device_num (dev) is device 0
// EXPECT-STDOUT: refused twice, nothing written
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double *h = malloc(100 * sizeof *h), g[100];
  for (int i = 0; i < 100; i++) {
    h[i] = i;
    g[i] = -1;
  }
  /* Meant: omp_target_memcpy(d, h, ...) with a device block D. */
  int r1 = omp_target_memcpy(h, g, 100 * sizeof *h, 0, 0, dev, host);
  int r2 = omp_target_memcpy(g, h, 100 * sizeof *h, 0, 0, host, dev);
  int same = h[99] == 99 && g[99] == -1;
  printf("%s\n", r1 && r2 && same ? "refused twice, nothing written"
                                  : "a copy went ahead");
  free(h);
  return r1 && r2 && same ? 0 : 1;
}
