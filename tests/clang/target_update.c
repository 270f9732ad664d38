// target update to/from moves data between host and device copies of a
// mapped array and of a section of it.
#include "check.h"

#define N 64

int main(void) {
  int a[N];
  for (int i = 0; i < N; i++) a[i] = i;
#pragma omp target data map(alloc: a)
  {
#pragma omp target update to(a)
#pragma omp target
    for (int i = 0; i < N; i++) a[i] += 1000;
    CHECK(a[0] == 0, "host changed before update from: %d", a[0]);
#pragma omp target update from(a[8:8])
    for (int i = 0; i < N; i++) {
      int want = (i >= 8 && i < 16) ? i + 1000 : i;
      if (a[i] != want) { CHECK(a[i] == want, "a[%d] = %d, want %d", i, a[i], want); break; }
    }
    a[0] = -5;
#pragma omp target update to(a[0:1])
#pragma omp target
    a[1] = a[0] * 2;
#pragma omp target update from(a)
  }
  CHECK(a[0] == -5 && a[1] == -10 && a[2] == 1002, "a = %d %d %d", a[0], a[1], a[2]);
  return tc_done();
}
