// map(from:) copies device results out; the host's old values are not
// copied in (checked by reading them on the device into a separate array
// is not possible without `to`, so the kernel overwrites every element).
#include "check.h"

#define N 512

int main(void) {
  double b[N];
  int c[4][8];
  for (int i = 0; i < N; i++) b[i] = -7.0;
  memset(c, 0, sizeof c);
#pragma omp target map(from: b, c)
  {
    for (int i = 0; i < N; i++) b[i] = i * 0.5;
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 8; j++) c[i][j] = i * 10 + j;
  }
  for (int i = 0; i < N; i++)
    if (b[i] != i * 0.5) { CHECK(b[i] == i * 0.5, "b[%d] = %g", i, b[i]); break; }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++)
      CHECK(c[i][j] == i * 10 + j, "c[%d][%d] = %d", i, j, c[i][j]);
  return tc_done();
}
