// omp_target_memcpy from a block with a src_offset that makes the copy
// read past its end: D is 800 bytes, 800 are read from offset 80.
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at find_memcpy_src_overrun.c:17: src d + src_offset 80 = 0x
// EXPECT-STDERR: : the copy of 800 bytes at offset 80 runs 80 bytes past the end of the allocation [0x
// EXPECT-STDERR: ) of 800 bytes: nothing copied
// EXPECT-NOT-STDERR: is not inside device 0 memory
// EXPECT-STDOUT: refused
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double h[100] = {0};
  double *d = omp_target_alloc(sizeof h, dev);
  if (!d || omp_target_memcpy(d, h, sizeof h, 0, 0, dev, host))
    return 1;
  int r = omp_target_memcpy(h, d, sizeof h, 0, 10 * sizeof(double), host, dev);
  printf("%s\n", r ? "refused" : "a copy went ahead");
  omp_target_free(d, dev);
  return r ? 0 : 1;
}
