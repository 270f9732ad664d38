// A section too short: A[0:N-1] is mapped, the kernel reads A[N-1].  In
// check mode each block ends at a guard page, so the read faults at once;
// the message names the kernel, the block and the variable.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l23 at find_section_too_short.c:23: invalid read of device memory at
// EXPECT-STDERR: just past the end of the live data block
// EXPECT-STDERR: (just past the end of variable a[0:n - 1] (declared at find_section_too_short.c:20)
// EXPECT-STDERR: map to at find_section_too_short.c:23)
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

/* Static: the message shows its host range, the same every run (see
 * find_member_not_attached.c). */
static double data[1000];

int main(void) {
  int n = 1000;
  double *a = data, sum = 0;
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target map(to: a[0:n - 1]) map(tofrom: sum)
  for (int i = 0; i < n; i++)
    sum += a[i];
  printf("sum = %g\n", sum);
  return 0;
}
