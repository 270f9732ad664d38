// target teams distribute parallel for with +, max and min reductions and
// a reduction over a double sum.
#include "check.h"

#define N 100000

int main(void) {
  int *v = malloc(N * sizeof *v);
  for (int i = 0; i < N; i++) v[i] = (i * 7919) % 10007;
  long sum = 0;
  int mx = -1, mn = 1 << 30;
  double dsum = 0;
#pragma omp target teams distribute parallel for map(to: v[0:N]) \
    reduction(+: sum, dsum) reduction(max: mx) reduction(min: mn)
  for (int i = 0; i < N; i++) {
    sum += v[i];
    dsum += 0.5;
    if (v[i] > mx) mx = v[i];
    if (v[i] < mn) mn = v[i];
  }
  long s = 0;
  int hmx = -1, hmn = 1 << 30;
  for (int i = 0; i < N; i++) {
    s += v[i];
    if (v[i] > hmx) hmx = v[i];
    if (v[i] < hmn) hmn = v[i];
  }
  CHECK(sum == s, "sum %ld, want %ld", sum, s);
  CHECK(mx == hmx, "max %d, want %d", mx, hmx);
  CHECK(mn == hmn, "min %d, want %d", mn, hmn);
  CHECK(dsum == N * 0.5, "dsum %g", dsum);
  free(v);
  return tc_done();
}
