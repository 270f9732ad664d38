// `to` on a data region where the kernel inside maps the data implicitly
// (so it expects its writes to come back): the data region's end removes
// the mapping without copying them.  Still a result thrown away, unlike a
// kernel that says map(alloc:) (clean_alloc_scratch.c).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel __omp_offloading_
// EXPECT-STDERR: of b[0:n] (declared at find_to_data_region.c:15), mapped with map(to) at find_to_data_region.c:19, and the data region exit at find_to_data_region.c:19 removed the mapping without copying them back
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  double *b = malloc(n * sizeof *b);
  for (int i = 0; i < n; i++)
    b[i] = -1;
  /* the results in b are wanted: map(tofrom: b[0:n]) */
#pragma omp target data map(to: b[0:n])
  {
#pragma omp target
    for (int i = 0; i < n; i++)
      b[i] = 2 * i;
  }
  printf("b[10] = %g\n", b[10]);
  free(b);
  return 0;
}
