// Use after free through a device-to-device copy: the address of A is
// copied into DP, DP is copied to DP2 on the device, DP is cleared, A is
// freed, and a kernel reads through DP2.  The freed block is protected
// before that kernel: the checker looks for its address in every live
// block, not only where copies from the host put it.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: find_use_after_free_device_copy.c:29: invalid read of device memory at 0x
// EXPECT-STDERR: inside the freed data block [0x
// EXPECT-STDERR: (the device copy of 512 bytes from omp_target_alloc, removed at omp_target_free)
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double **dp = omp_target_alloc(sizeof(double *), dev);
  double **dp2 = omp_target_alloc(sizeof(double *), dev);
  double *a = omp_target_alloc(64 * sizeof(double), dev), *nul = NULL;
  omp_target_memcpy(dp, &a, sizeof a, 0, 0, dev, host);
  omp_target_memcpy(dp2, dp, sizeof a, 0, 0, dev, dev);
  omp_target_memcpy(dp, &nul, sizeof nul, 0, 0, dev, host);
#pragma omp target is_device_ptr(a)
  for (int i = 0; i < 64; i++)
    a[i] = i;
  omp_target_free(a, dev);
  int x = 0;
  /* The bug: dp2[0] points into the freed block. */
#pragma omp target is_device_ptr(dp2) map(from: x)
  x = dp2[0][7] == 7.0 ? 1 : 2;
  printf("x=%d\n", x);
  omp_target_free(dp, dev);
  omp_target_free(dp2, dev);
  return 0;
}
