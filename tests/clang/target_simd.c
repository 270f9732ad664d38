// target simd and target teams distribute parallel for simd loops.
#include "check.h"

#define N 1024

int main(void) {
  float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) { a[i] = i; b[i] = 2 * i; }
#pragma omp target simd map(to: a, b) map(from: c)
  for (int i = 0; i < N; i++) c[i] = a[i] + b[i];
  for (int i = 0; i < N; i++) CHECK(c[i] == 3.0f * i, "c[%d] = %g", i, c[i]);
  float dot = 0;
#pragma omp target teams distribute parallel for simd map(to: a, b) reduction(+: dot)
  for (int i = 0; i < N; i++) dot += a[i] * 0.0f + b[i] * 0.5f;
  CHECK(dot == (float)N * (N - 1) / 2, "dot %g", dot);
  return tc_done();
}
