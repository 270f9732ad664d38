// Under OMP_TARGET_OFFLOAD=disabled omp_target_alloc returns host memory,
// and omp_target_memcpy copies on the host: a copy that overruns such a
// block is refused as one overrunning a device block is (in every mode,
// here the default one), naming the call's line, the variable, the length
// and the allocation; nothing is copied, on either side.
// RUN-ENV: OMP_TARGET_OFFLOAD=disabled
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at find_memcpy_disabled_overrun.c:24: dst d = 0x
// EXPECT-STDERR: : the copy of 512 bytes at offset 0 runs 256 bytes past the end of the allocation [0x
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at find_memcpy_disabled_overrun.c:25: src d + src_offset 128 = 0x
// EXPECT-STDERR: : the copy of 256 bytes at offset 128 runs 128 bytes past the end of the allocation [0x
// EXPECT-STDERR: ) of 256 bytes: nothing copied
// EXPECT-STDOUT: both refused, nothing copied
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double h[64], back[32];
  for (int i = 0; i < 64; i++)
    h[i] = i;
  double *d = omp_target_alloc(32 * sizeof(double), dev);
  if (!d || omp_target_memcpy(d, h, 32 * sizeof(double), 0, 0, dev, host))
    return 1;
  int r1 = omp_target_memcpy(d, h, 64 * sizeof(double), 0, 0, dev, host);
  int r2 = omp_target_memcpy(back, d, sizeof back, 0, 16 * sizeof(double), host, dev);
  int same = d[0] == 0 && d[31] == 31;
  printf("%s\n", r1 && r2 && same ? "both refused, nothing copied" : "a copy went ahead");
  omp_target_free(d, dev);
  return r1 && r2 && same ? 0 : 1;
}
