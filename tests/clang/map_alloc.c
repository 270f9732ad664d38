// map(alloc:) gives device storage without a copy: the kernel writes it,
// a later kernel in the same data region reads it, and only an explicit
// `target update from` brings it to the host.
#include "check.h"

#define N 256

int main(void) {
  int t[N];
  int out[N];
  for (int i = 0; i < N; i++) t[i] = -1;
#pragma omp target data map(alloc: t)
  {
#pragma omp target map(alloc: t)
    for (int i = 0; i < N; i++) t[i] = i * i;
    /* the host copy is untouched by an alloc map */
    CHECK(t[0] == -1 && t[N - 1] == -1, "host t changed: %d %d", t[0], t[N - 1]);
#pragma omp target map(from: out)
    for (int i = 0; i < N; i++) out[i] = t[i] + 1;
#pragma omp target update from(t)
  }
  for (int i = 0; i < N; i++) {
    CHECK(t[i] == i * i, "t[%d] = %d", i, t[i]);
    CHECK(out[i] == i * i + 1, "out[%d] = %d", i, out[i]);
    if (tc_failures) break;
  }
  return tc_done();
}
