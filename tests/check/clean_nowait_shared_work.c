// Four target nowait regions launched in a loop, each writing its own
// element of one mapped array and counting with an atomic on a device
// counter: they share the work, no race.  Every region must join one
// batch (the hold waits for the tasks the loop creates), so each region's
// writes are measured: a region that ran before the others arrived would
// be judged by its map type alone.  libomp 19 and later report target
// tasks to the tool with ompt_task_target and without ompt_task_explicit;
// the hold ended at once for them and the first region ran alone, and
// then check mode reported a race on `order` (issue 14).
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_TRACE=1
// EXPECT-STDERR: ompemu: check: nowait batches: 1, held the full OMPEMU_CHECK_HOLD_MS: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: ticket 256, each region wrote its own element: yes
#include <stdio.h>

enum { NT = 4, N = 64 };

int main(void) {
  int order[NT];
  int ticket[1] = {0};
  for (int i = 0; i < NT; i++)
    order[i] = -1;
#pragma omp target enter data map(to: ticket[0:1], order[0:NT])
  for (int i = 0; i < NT; ++i) {
#pragma omp target teams distribute map(alloc: ticket[0:1]) nowait
    for (int j = 0; j < N; ++j) {
      int mine;
#pragma omp atomic capture
      mine = ticket[0]++;
      order[i] = mine;
    }
  }
#pragma omp taskwait
#pragma omp target exit data map(from: ticket[0:1], order[0:NT])
  int own = 1;
  for (int i = 0; i < NT; i++)
    own &= order[i] >= 0 && order[i] < NT * N;
  printf("ticket %d, each region wrote its own element: %s\n", ticket[0],
         own ? "yes" : "no");
  return 0;
}
