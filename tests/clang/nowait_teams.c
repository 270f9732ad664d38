// target teams distribute parallel for nowait: libomp 14 runs the target
// task on a hidden helper thread; LLVM's host plugin then forks the teams
// from that thread and loses iterations (same family as llvm#63298).  The
// emu device runs the kernel on its own threads.
// LLVM14-FAILS: teams forked from a hidden helper thread lose iterations
// SKIP-MODE-x86: LLVM 14's x86_64 plugin runs kernels on the calling (hidden helper) thread
#include "check.h"

#define N 4096

int main(void) {
  int *b = calloc(N, sizeof *b);
  int *c = calloc(N, sizeof *c);
#pragma omp target teams distribute parallel for nowait map(tofrom: b[0:N])
  for (int i = 0; i < N; i++) b[i] = 2 * i;
#pragma omp target teams distribute parallel for nowait map(tofrom: c[0:N]) num_teams(2)
  for (int i = 0; i < N; i++) c[i] = 3 * i;
#pragma omp taskwait
  int bad = 0;
  for (int i = 0; i < N; i++) bad += (b[i] != 2 * i) + (c[i] != 3 * i);
  CHECK(bad == 0, "%d wrong elements (b[1]=%d c[1]=%d)", bad, b[1], c[1]);
  free(b);
  free(c);
  return tc_done();
}
