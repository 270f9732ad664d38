/* Timeline test program for determinism: one host thread, data mapped
 * with enter data, one nowait kernel, one synchronous kernel, an update.
 * Two runs must give the same timeline apart from times. */
#include <stdio.h>

#define N 512
static float gamma_[N];

int main(void) {
  for (int i = 0; i < N; i++)
    gamma_[i] = (float)i;
#pragma omp target enter data map(to: gamma_)
#pragma omp target nowait
  for (int i = 0; i < N; i++)
    gamma_[i] += 1.0f;
#pragma omp taskwait
#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++)
    gamma_[i] *= 2.0f;
#pragma omp target update from(gamma_)
#pragma omp target exit data map(release: gamma_)
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += gamma_[i] != 2.0f * (float)(i + 1);
  printf("nowait_one: %s\n", bad ? "FAILED" : "ok");
  return bad != 0;
}
