// omp_target_memcpy_rect of a 5x5 volume at dst_offsets {2, 2} into a
// 5x5 block: the third row (offset 4 * 40 + 16 = 176) runs past the end.
// The message shows where the offsets and dimensions put the row; every
// row is checked before any is copied, so the block keeps its zeros.
// EXPECT-STDERR: ompemu: error: omp_target_memcpy_rect at find_memcpy_rect_overrun.c:23: dst d + 176 bytes (by dst_offsets and dst_dimensions) = 0x
// EXPECT-STDERR: : the copy of 40 bytes at offset 176 runs 16 bytes past the end of the allocation [0x
// EXPECT-STDERR: ) of 200 bytes: nothing copied
// EXPECT-STDOUT: refused, block unchanged
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double h[10][10];
  for (int i = 0; i < 10; i++)
    for (int j = 0; j < 10; j++)
      h[i][j] = i * 10 + j;
  double zero[25] = {0}, back[25];
  double *d = omp_target_alloc(sizeof zero, dev);
  if (!d || omp_target_memcpy(d, zero, sizeof zero, 0, 0, dev, host))
    return 1;
  size_t vol[2] = {5, 5}, doff[2] = {2, 2}, soff[2] = {0, 0}, ddim[2] = {5, 5}, sdim[2] = {10, 10};
  int r = omp_target_memcpy_rect(d, h, sizeof(double), 2, vol, doff, soff, ddim, sdim, dev, host);
  if (omp_target_memcpy(back, d, sizeof back, 0, 0, host, dev))
    return 1;
  int same = 1;
  for (int i = 0; i < 25; i++)
    same &= back[i] == 0;
  printf("%s\n", r && same ? "refused, block unchanged" : "a copy went ahead");
  omp_target_free(d, dev);
  return r && same ? 0 : 1;
}
