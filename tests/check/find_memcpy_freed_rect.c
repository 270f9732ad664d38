// omp_target_memcpy_rect from device memory already freed, the call split
// over several lines: the message names the call's line, the source
// argument as written, and where the block was allocated and freed.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_memcpy_rect at find_memcpy_freed_rect.c:24: src tile = 0x0000550000
// EXPECT-STDERR: is device 0 memory that omp_target_free freed at find_memcpy_freed_rect.c:23 (128 bytes, allocated by omp_target_alloc at find_memcpy_freed_rect.c:20): nothing copied
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double h[4][4];
  size_t volume[2] = {4, 4}, zero[2] = {0, 0}, dims[2] = {4, 4};
  double *tile;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      h[i][j] = i * 4 + j;
  tile = omp_target_alloc(sizeof h, dev);
  omp_target_memcpy_rect(tile, h, sizeof(double), 2, volume, zero, zero,
                         dims, dims, dev, host);
  omp_target_free(tile, dev);
  int rc = omp_target_memcpy_rect(h, tile, sizeof(double), 2, volume, zero,
                                  zero, dims, dims, host, dev);
  printf("omp_target_memcpy_rect returned %d\n", rc);
  return 0;
}
