/* Timeline test program: two host threads offload at once, each with a
 * nowait kernel, one on data it mapped with enter data, the other on data
 * mapped by the kernel's own construct.  tests/timeline/run.sh checks the
 * timeline of a run (tracks, kernel and variable names, copies, flows). */
#include <omp.h>
#include <stdio.h>

#define N 1024
static double alpha[N], beta[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    alpha[i] = i;
    beta[i] = 2 * i;
  }
  omp_set_dynamic(0);
  int team = 0;
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    team = omp_get_num_threads();
    if (omp_get_thread_num() == 0) {
#pragma omp target enter data map(to: alpha)
#pragma omp target teams distribute parallel for nowait
      for (int i = 0; i < N; i++)
        alpha[i] = alpha[i] * 2 + 1;
#pragma omp taskwait
#pragma omp target exit data map(from: alpha)
    } else {
#pragma omp target map(tofrom: beta) nowait
      for (int i = 0; i < N; i++)
        beta[i] += 3;
#pragma omp taskwait
    }
  }
  int bad = team != 2;
  for (int i = 0; i < N; i++)
    bad += alpha[i] != 2.0 * i + 1 || beta[i] != 2.0 * i + 3;
  printf("nowait_threads: %s (team of %d)\n", bad ? "FAILED" : "ok", team);
  return bad != 0;
}
