// target nowait from clang 16+: the launch carries the nowait flag in
// KernelArgs (Flags bit 0) and runs from a target task, possibly on a
// libomp worker thread; dependences order the tasks, taskwait joins them.
#include "check.h"

#define N 64
#define K 6

int main(void) {
  int a[K][N];
  for (int k = 0; k < K; k++)
    for (int i = 0; i < N; i++) a[k][i] = k;

  /* independent kernels */
  for (int k = 0; k < K; k++) {
#pragma omp target nowait map(tofrom: a[k][0:N]) firstprivate(k)
    for (int i = 0; i < N; i++) a[k][i] = a[k][i] * 100 + i;
  }
#pragma omp taskwait
  for (int k = 0; k < K; k++)
    CHECK(a[k][0] == 100 * k && a[k][N - 1] == 100 * k + N - 1, "a[%d] = %d .. %d", k, a[k][0], a[k][N - 1]);

  /* a chain: x -> y -> z through depend clauses */
  int x = 1, y = 0, z = 0;
#pragma omp target nowait map(tofrom: x) depend(out: x)
  x += 1;
#pragma omp target nowait map(to: x) map(tofrom: y) depend(in: x) depend(out: y)
  y = x * 10;
#pragma omp target nowait map(to: y) map(tofrom: z) depend(in: y) depend(out: z)
  z = y + 3;
#pragma omp taskwait
  CHECK(x == 2 && y == 20 && z == 23, "chain: x %d y %d z %d", x, y, z);

  /* launched from several host threads at once */
  int per[4] = {0, 0, 0, 0};
#pragma omp parallel num_threads(2)
#pragma omp single
  for (int t = 0; t < 4; t++) {
#pragma omp target nowait map(tofrom: per[t:1]) firstprivate(t)
    per[t] = t * t + 1;
  }
  CHECK(per[0] == 1 && per[1] == 2 && per[2] == 5 && per[3] == 10, "per = %d %d %d %d", per[0], per[1], per[2], per[3]);
  return tc_done();
}
