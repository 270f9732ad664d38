// omp_target_memcpy of more bytes than the device block holds: D has 32
// doubles, the copy asks for 64.  Refused before any byte moves, in every
// mode (here the default one), naming the call's line, the variable, the
// length and the allocation it overruns; the block keeps its bytes.
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at find_memcpy_overrun.c:21: dst d = 0x
// EXPECT-STDERR: : the copy of 512 bytes at offset 0 runs 256 bytes past the end of the allocation [0x
// EXPECT-STDERR: ) of 256 bytes: nothing copied
// EXPECT-NOT-STDERR: is not inside device 0 memory
// EXPECT-STDOUT: refused, block unchanged
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
  int r = omp_target_memcpy(d, h + 32, 64 * sizeof(double), 0, 0, dev, host);
  if (omp_target_memcpy(back, d, sizeof back, 0, 0, host, dev))
    return 1;
  int same = back[0] == 0 && back[31] == 31;
  printf("%s\n", r && same ? "refused, block unchanged" : "a copy went ahead");
  omp_target_free(d, dev);
  return r && same ? 0 : 1;
}
