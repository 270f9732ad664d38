// omp_target_alloc / omp_target_free / omp_target_memcpy (host<->device,
// device<->device, with offsets) / omp_target_memcpy_rect on a 2-D block.
#include "check.h"
#include <limits.h>
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  double h[100], back[100];
  for (int i = 0; i < 100; i++) h[i] = i;
  double *d1 = omp_target_alloc(sizeof h, dev);
  double *d2 = omp_target_alloc(sizeof h, dev);
  CHECK(d1 && d2 && d1 != d2, "alloc gave %p %p", (void *)d1, (void *)d2);
  if (!d1 || !d2) return tc_done();
  CHECK(omp_target_alloc(0, dev) == NULL, "omp_target_alloc(0) is not NULL");
  CHECK(omp_target_memcpy(d1, h, sizeof h, 0, 0, dev, host) == 0, "host->dev");
  /* device to device with offsets: d2[10..19] = d1[50..59] */
  CHECK(omp_target_memcpy(d2, d1, 10 * sizeof(double), 10 * sizeof(double),
                          50 * sizeof(double), dev, dev) == 0, "dev->dev");
  for (int i = 0; i < 100; i++) back[i] = -1;
  CHECK(omp_target_memcpy(back, d2, 10 * sizeof(double), 10 * sizeof(double),
                          10 * sizeof(double), host, dev) == 0, "dev->host");
  for (int i = 10; i < 20; i++) CHECK(back[i] == 40 + i, "back[%d] = %g", i, back[i]);
  CHECK(back[9] == -1 && back[20] == -1, "copied outside the range");
  /* host->host through the API */
  double hh[3] = {0};
  CHECK(omp_target_memcpy(hh, h, sizeof hh, 0, 8 * sizeof(double), host, host) == 0, "host->host");
  CHECK(hh[0] == 8 && hh[2] == 10, "host->host gave %g %g", hh[0], hh[2]);

  /* memcpy_rect: a 3x4 block at (1,2) of a 6x8 host matrix into (0,1) of
     a 5x5 device matrix, then the whole device matrix back */
  int m[6][8], dm_back[5][5];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 8; j++) m[i][j] = i * 10 + j;
  int *dm = omp_target_alloc(sizeof dm_back, dev);
  int zero[5][5] = {{0}};
  CHECK(omp_target_memcpy(dm, zero, sizeof zero, 0, 0, dev, host) == 0, "zero dm");
  size_t vol[2] = {3, 4}, doff[2] = {0, 1}, soff[2] = {1, 2};
  size_t ddim[2] = {5, 5}, sdim[2] = {6, 8};
  CHECK(omp_target_memcpy_rect(dm, m, sizeof(int), 2, vol, doff, soff, ddim, sdim, dev, host) == 0,
        "memcpy_rect host->dev");
  CHECK(omp_target_memcpy(dm_back, dm, sizeof dm_back, 0, 0, host, dev) == 0, "dm back");
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 5; j++) {
      int want = (i < 3 && j >= 1 && j < 5) ? (i + 1) * 10 + (j - 1 + 2) : 0;
      CHECK(dm_back[i][j] == want, "dm[%d][%d] = %d, want %d", i, j, dm_back[i][j], want);
    }
  CHECK(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, dev, host) == INT_MAX,
        "memcpy_rect(NULL, NULL) does not report the maximum dimension count");
  /* the kernel sees what omp_target_memcpy wrote */
  double s = 0;
#pragma omp target is_device_ptr(d1) map(tofrom: s)
  for (int i = 0; i < 100; i++) s += d1[i];
  CHECK(s == 4950, "kernel sum %g", s);
  omp_target_free(d1, dev);
  omp_target_free(d2, dev);
  omp_target_free(dm, dev);
  omp_target_free(NULL, dev);
  return tc_done();
}
