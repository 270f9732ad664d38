// `to` where `tofrom` was needed: the kernel writes B, mapped to:, and the
// end of the region removes the mapping without copying the results back.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel __omp_offloading_
// EXPECT-STDERR: _main_l18 (find_to_not_tofrom.c:18) changed 2888 of 8000 bytes of b[0:n] (declared at find_to_not_tofrom.c:13), mapped with map(to) at find_to_not_tofrom.c:18, and the target region at find_to_not_tofrom.c:18 removed the mapping without copying them back
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  for (int i = 0; i < n; i++) {
    a[i] = i;
    b[i] = -1;
  }
#pragma omp target map(to: a[0:n], b[0:n])
  for (int i = 0; i < n; i++)
    b[i] = 2 * a[i];
  printf("b[10] = %g\n", b[10]);
  free(a);
  free(b);
  return 0;
}
