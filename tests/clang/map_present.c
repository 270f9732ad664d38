// map(present: ...) and `update to(present: ...)` succeed when the data is
// already mapped (OpenMP 5.1 modifier).
// CFLAGS: -fopenmp-version=51
#include "check.h"
#include <omp.h>

int main(void) {
  int a[32], r = 0;
  for (int i = 0; i < 32; i++) a[i] = i;
#pragma omp target enter data map(to: a)
  CHECK(omp_target_is_present(a, omp_get_default_device()), "a not present after enter data");
#pragma omp target map(present, tofrom: a) map(from: r)
  {
    r = a[31];
    a[0] = 100;
  }
  a[1] = 50;
#pragma omp target update to(present: a[1:1])
#pragma omp target data map(present, alloc: a)
  {
#pragma omp target map(tofrom: r)
    r += a[1];
  }
#pragma omp target exit data map(from: a)
  CHECK(r == 81, "r = %d", r);
  CHECK(a[0] == 100 && a[1] == 50, "a[0]=%d a[1]=%d", a[0], a[1]);
  return tc_done();
}
