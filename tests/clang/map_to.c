// map(to:) copies host data in and nothing back; map(from:) of a scalar
// brings the result out.
// In check mode, A changed on the device and not copied back is a result
// thrown away (on purpose here).
// CHECK-FINDING: result thrown away: kernel
#include "check.h"
#include <omp.h>

#define N 1000

int main(void) {
  int a[N];
  long sum = 0;
  for (int i = 0; i < N; i++) a[i] = i;
#pragma omp target map(to: a) map(from: sum)
  {
    long s = 0;
    for (int i = 0; i < N; i++) s += a[i];
    for (int i = 0; i < N; i++) a[i] = -1; /* device copy only */
    sum = s;
  }
  CHECK(sum == (long)N * (N - 1) / 2, "sum %ld", sum);
  for (int i = 0; i < N; i++)
    if (a[i] != i) { CHECK(a[i] == i, "a[%d] = %d after map(to:)", i, a[i]); break; }
  return tc_done();
}
