// Two target nowait regions both update X with no dependence between them:
// a race.  Check mode holds nowait regions at their start so that both are
// in flight together, runs them one at a time in source order (so the
// result is the same every run: x = (0 + 1) * 2) and reports the race.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: race between nowait target regions: the one at find_nowait_race.c:20 (kernel __omp_offloading_
// EXPECT-STDERR: and the one at find_nowait_race.c:23 (kernel __omp_offloading_
// EXPECT-STDERR: and each uses x (declared at find_nowait_race.c:17): both write it
// EXPECT-STDOUT: x[7] = 2
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

enum { N = 64 };

int main(void) {
  int x[N] = {0};
#pragma omp parallel num_threads(1)
  {
#pragma omp target map(tofrom: x) nowait
    for (int i = 0; i < N; i++)
      x[i] += 1;
#pragma omp target map(tofrom: x) nowait
    for (int i = 0; i < N; i++)
      x[i] *= 2;
#pragma omp taskwait
  }
  printf("x[7] = %d\n", x[7]);
  return 0;
}
