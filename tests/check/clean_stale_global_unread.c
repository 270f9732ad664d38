// Declare-target globals the host changes without `target update to`: the
// kernels here never read them (one is only the host's; one is read only
// after a kernel wrote it).  Only a kernel that reads the stale bytes is a
// finding: none here, though the globals share their pages with the ones
// the kernels use.  The last kernel reads LIMIT: no finding either,
// because an update sent it first.
// OMPEMU-RUN: --check
// EXPECT-STDOUT: x[2] = 6 count = 3 limit = 9
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

#pragma omp declare target
double scale = 3.0;  /* read by the kernels, never changed */
double offset = 0.0; /* changed on the host, never read on the device */
int count = 0;       /* changed on the host; a kernel writes it, then reads */
int limit = 1;       /* changed on the host, updated, then read */
#pragma omp end declare target

int main(void) {
  double x[8];
  for (int i = 0; i < 8; i++)
    x[i] = i;
  offset = 5.0; /* the host's own value from here on */
  count = 7;
#pragma omp target map(tofrom: x)
  for (int i = 0; i < 8; i++)
    x[i] *= scale;
  int c = 0;
#pragma omp target map(from: c)
  {
    count = 0;
    for (int i = 0; i < 3; i++)
      count++;
    c = count;
  }
  limit = 9;
#pragma omp target update to(limit)
  int l = 0;
#pragma omp target map(from: l)
  l = limit + (int)scale - 3;
  printf("x[2] = %g count = %d limit = %d\n", x[2], c, l);
  return 0;
}
