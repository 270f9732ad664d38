// A section one element short of an odd number of floats: map(to:
// x[0:n-1]) with n = 1000, and a loop that reads x[n-1].  The block's
// size (3996 bytes) is no multiple of 8; it still ends exactly at its
// guard page (aligned to 4, the largest power of two dividing its size),
// so the read past its end faults at once, named with the section and the
// kernel's construct.  (Aligned to 8, the read fell in 4 bytes of slack
// holding the poison: NaN, and no finding.)
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l24 at find_section_short_floats.c:24: invalid read of device memory at
// EXPECT-STDERR: just past the end of the live data block
// EXPECT-STDERR: of 3996 bytes (just past the end of variable x[0:n - 1] (declared at find_section_short_floats.c:19)
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  float *x = malloc(n * sizeof *x);
  double sum = 0;
  for (int i = 0; i < n; i++)
    x[i] = 1;
  /* x[n-1] is read but not mapped */
#pragma omp target map(to: x[0:n-1]) map(tofrom: sum)
  for (int i = 0; i < n; i++)
    sum += x[i];
  printf("sum = %g\n", sum);
  free(x);
  return 0;
}
