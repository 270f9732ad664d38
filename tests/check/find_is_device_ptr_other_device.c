// is_device_ptr(d) of memory omp_target_alloc gave on device 1, for a
// kernel on device 0: on a GPU the kernel would fault or reach another
// card's memory through no mapping.  The emulated devices share the
// process, so the access itself works; the launch is the finding, with
// the variable, both devices and the block.
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_NUM_DEVICES=2
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: device memory of another device: kernel __omp_offloading_
// EXPECT-STDERR: _main_l20 at find_is_device_ptr_other_device.c:20 runs on device 0 and was given d = 0x
// EXPECT-STDERR: which is device 1's memory (8000 bytes from omp_target_alloc); a device reaches only its own memory: allocate or map it on device 0
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void) {
  double *d = omp_target_alloc(N * sizeof(double), 1);
#pragma omp target teams distribute parallel for is_device_ptr(d) device(0)
  for (int i = 0; i < N; i++)
    d[i] = i;
  omp_target_free(d, 1);
  printf("done\n");
  return 0;
}
