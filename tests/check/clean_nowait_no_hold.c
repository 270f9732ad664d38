// Twenty target nowait regions, each waited for at once by a taskwait:
// nothing can race with any of them, so check mode does not hold them
// (issue 14).  The hold is set to 10 s: a region held the full time would
// push the run past the test's timeout.  The trace's count shows that no
// batch waited the whole hold.
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_CHECK_HOLD_MS=10000 OMPEMU_TRACE=1
// EXPECT-STDERR: ompemu: check: nowait batches: 20, held the full OMPEMU_CHECK_HOLD_MS: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: x[7] = 20
#include <stdio.h>

enum { N = 64 };

int main(void) {
  int x[N] = {0};
  for (int k = 0; k < 20; k++) {
#pragma omp target map(tofrom: x) nowait
    for (int i = 0; i < N; i++)
      x[i] += 1;
#pragma omp taskwait
  }
  printf("x[7] = %d\n", x[7]);
  return 0;
}
