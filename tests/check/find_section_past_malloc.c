// A map section longer than the host block: A holds N doubles, the map
// asks for N*N.  Before the copy reads past the end of the block, the
// check mode names the variable, the construct and both sizes.  (B, from
// calloc, is mapped within its bounds, and C from the middle of a block:
// no finding for either.)
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: map section past the end of host memory: map(to) of a[0:n * n] (declared at find_section_past_malloc.c:17) at the target region at find_section_past_malloc.c:23 is 3200 bytes, but the heap block it starts at (from malloc) holds at most 168: 3032 bytes past the end of what the program allocated, and the runtime reads them
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
// SKIP-SANITIZED: with ASan's allocator the heap rule stays silent, and ASan itself stops the runtime's read past the block
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 20;
  double *a = malloc(n * sizeof *a), *b = calloc(4 * n, sizeof *b);
  double *c = malloc(1000 * sizeof *c), sum = 0;
  for (int i = 0; i < n; i++)
    a[i] = i;
  for (int i = 0; i < 1000; i++)
    c[i] = 1;
#pragma omp target map(to: a[0:n * n], b[0:4 * n], c[10:n]) map(tofrom: sum)
  for (int i = 0; i < n; i++)
    sum += a[i] + b[i] + c[10 + i];
  printf("sum = %g\n", sum);
  free(a);
  free(b);
  free(c);
  return 0;
}
