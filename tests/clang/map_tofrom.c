// map(tofrom:) of arrays, array sections of a heap buffer and scalars.
#include "check.h"

#define N 300

int main(void) {
  int a[N];
  int *h = malloc(N * sizeof *h);
  int x = 5;
  for (int i = 0; i < N; i++) { a[i] = i; h[i] = 2 * i; }
#pragma omp target map(tofrom: a, x) map(tofrom: h[10:100])
  {
    for (int i = 0; i < N; i++) a[i] += 1;
    for (int i = 10; i < 110; i++) h[i] *= 3;
    x *= 7;
  }
  for (int i = 0; i < N; i++)
    if (a[i] != i + 1) { CHECK(a[i] == i + 1, "a[%d] = %d", i, a[i]); break; }
  for (int i = 0; i < N; i++) {
    int want = (i >= 10 && i < 110) ? 6 * i : 2 * i;
    if (h[i] != want) { CHECK(h[i] == want, "h[%d] = %d, want %d", i, h[i], want); break; }
  }
  CHECK(x == 35, "x = %d", x);
  free(h);
  return tc_done();
}
