// omp_target_memcpy into the second half of a block with the whole
// block's length: D is 800 bytes, the copy of 800 starts at dst_offset
// 400.  The message shows the pointer and the offset apart, and says the
// copy runs past the end of the block (D is device memory all the same).
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at find_memcpy_offset.c:19: dst d + dst_offset 400 = 0x
// EXPECT-STDERR: : the copy of 800 bytes at offset 400 runs 400 bytes past the end of the allocation [0x
// EXPECT-STDERR: ) of 800 bytes: nothing copied
// EXPECT-NOT-STDERR: is not inside device 0 memory
// EXPECT-STDOUT: refused
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double h[100];
  for (int i = 0; i < 100; i++)
    h[i] = i;
  double *d = omp_target_alloc(sizeof h, dev);
  int r = omp_target_memcpy(d, h, sizeof h, sizeof h / 2, 0, dev, host);
  printf("%s\n", r && d ? "refused" : "a copy went ahead");
  omp_target_free(d, dev);
  return r && d ? 0 : 1;
}
