// `target update` of data that is not mapped: nothing is copied (OpenMP
// allows it), which is almost always a mistake; check mode reports it.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: target update from of a (declared at find_update_unmapped.c:12) at find_update_unmapped.c:18: it is not mapped on device 0, so nothing was copied
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

enum { N = 100 };

int main(void) {
  double a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target map(tofrom: a)
  for (int i = 0; i < N; i++)
    a[i] *= 2;
#pragma omp target update from(a)
  printf("a[3] = %g\n", a[3]);
  return 0;
}
