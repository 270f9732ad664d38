// target teams regions launched from inside a host parallel region, by
// every host thread at once.  LLVM's host plugin runs the kernel on the
// calling thread and fails here (llvm#63298); the emu device runs kernels
// on its own threads.
// LLVM14-FAILS: llvm#63298 (teams inside a host parallel region)
// SKIP-MODE-x86: LLVM 14's x86_64 plugin runs kernels on the calling thread (llvm#63298)
#include "check.h"
#include <omp.h>

#define N 2000
#define T 4

int main(void) {
  static int out[T][N];
  int nthr = 0;
#pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
#pragma omp single
    nthr = omp_get_num_threads();
    int *row = out[t];
#pragma omp target teams distribute parallel for map(from: row[0:N]) num_teams(2)
    for (int i = 0; i < N; i++) row[i] = t * N + i;
  }
  for (int t = 0; t < nthr; t++)
    for (int i = 0; i < N; i++)
      if (out[t][i] != t * N + i) {
        CHECK(out[t][i] == t * N + i, "out[%d][%d] = %d", t, i, out[t][i]);
        break;
      }
  CHECK(nthr >= 1, "no threads");
  return tc_done();
}
