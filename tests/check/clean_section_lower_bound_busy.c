// A correct kernel that reads a section with a lower bound (u[1:500]) many
// times over: the block's first page, which holds its slack, holds all of
// it, so the slack's watch steps every read.  It is given up after 20 000
// stepped accesses without a read of the slack (watch.h), so the kernel
// soon runs at full speed; nothing is reported.
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_TRACE=2
// EXPECT-STDERR: was given up after 20000 stepped accesses to its page
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: sum 2505000
#include <stdio.h>

static double u[501];

int main(void) {
  for (int i = 0; i <= 500; i++)
    u[i] = i;
  double s = 0;
#pragma omp target map(to : u[1 : 500]) map(tofrom : s)
  for (int rep = 0; rep < 100; rep++)
    for (int i = 1; i <= 500; i++)
      s += u[i] / 5;
  printf("sum %.0f\n", s);
  return 0;
}
