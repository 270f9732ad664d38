// omp_target_alloc returns NULL when the device is full, as OpenMP
// defines, and the program handles it: the plugin's "out of device
// memory" line is a warning, not an error, so the checked run ends with
// no findings and exit status 0.  A map that cannot be allocated still
// fails its construct with errors (find_map_out_of_memory.c).
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_DEVICE_MEMORY=4M
// EXPECT-EXIT: 0
// EXPECT-STDERR: emu: warning: device 0: out of device memory: request of 1048576 bytes
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-NOT-STDERR: error
// EXPECT-STDOUT: allocated 4 blocks of 1 MiB, then NULL
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device(), n = 0;
  void *p[16];
  while (n < 16 && (p[n] = omp_target_alloc(1 << 20, dev)))
    n++;
  printf("allocated %d blocks of 1 MiB, then NULL\n", n);
  while (n > 0)
    omp_target_free(p[--n], dev);
  return 0;
}
