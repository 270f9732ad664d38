// find_nowait_race.c with a 10 s hold: the hold ends once the launching
// thread reaches its taskwait with both regions arrived, so the race is
// still found, in the same order, and no batch waits the whole hold.
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_CHECK_HOLD_MS=10000 OMPEMU_TRACE=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: race between nowait target regions: the one at find_nowait_race_no_wait.c:20 (kernel __omp_offloading_
// EXPECT-STDERR: (ompemu ran the batch in the order find_nowait_race_no_wait.c:20, find_nowait_race_no_wait.c:23)
// EXPECT-STDERR: ompemu: check: nowait batches: 1, held the full OMPEMU_CHECK_HOLD_MS: 0
// EXPECT-STDOUT: x[7] = 2
#include <stdio.h>

enum { N = 64 };

int main(void) {
  int x[N] = {0};
  // One thread launches both regions, then waits for them.
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
