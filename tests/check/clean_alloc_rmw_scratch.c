// A target region's map(alloc:) scratch that its kernel reads and then
// writes all of (`c[j] += ...` on memory nobody initialised) while its
// results are thrown away on purpose, as the OpenMP V&V suite's target
// data if tests do when the data region is off: nothing of it reaches the
// host, so no finding.  Compare find_alloc_read.c (read, never written)
// and find_from_read.c (map(from:) results from garbage).
// OMPEMU-RUN: --check
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: c[3] = -1
#include <stdio.h>

enum { N = 512 };

int main(void) {
  int c[N];
  for (int i = 0; i < N; i++)
    c[i] = -1;
#pragma omp target map(alloc: c[0:N])
  for (int j = 0; j < N; j++)
    c[j] += j + 1;
  printf("c[3] = %d\n", c[3]);
  return 0;
}
