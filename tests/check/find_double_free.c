// omp_target_free twice: the second call is refused with a message in the
// API's words (in every mode) that names the call, the variable, and where
// the block was allocated and first freed; check mode fails the run.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_free(p) at find_double_free.c:20: 0x0000550000
// EXPECT-STDERR: (800 bytes of device 0 memory, allocated by omp_target_alloc at find_double_free.c:15) was already freed at find_double_free.c:19: nothing done
// EXPECT-STDERR: ompemu: check: no findings, but 1 error reported; exit status 99
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  double *p = omp_target_alloc(100 * sizeof(double), dev);
#pragma omp target is_device_ptr(p)
  for (int i = 0; i < 100; i++)
    p[i] = i;
  omp_target_free(p, dev);
  omp_target_free(p, dev); /* twice */
  printf("done\n");
  return 0;
}
