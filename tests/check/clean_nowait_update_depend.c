// The correct form of find_nowait_update_race.c: enter data, two kernels
// and two updates, all nowait, ordered by depend clauses: no finding.
// OMPEMU-RUN: --check
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: a[0] = 3 b[0] = 10
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#define N 2048
static float a[N], b[N];

int main(void) {
  for (int i = 0; i < N; i++) { a[i] = 1; b[i] = 2; }
#pragma omp target enter data map(to: a, b) nowait depend(out: a, b)
#pragma omp target teams distribute parallel for nowait depend(inout: a)
  for (int i = 0; i < N; i++) a[i] *= 3;
#pragma omp target teams distribute parallel for nowait depend(inout: b)
  for (int i = 0; i < N; i++) b[i] *= 5;
#pragma omp target update from(a) nowait depend(in: a)
#pragma omp target update from(b) nowait depend(in: b)
#pragma omp taskwait
#pragma omp target exit data map(delete: a, b)
  printf("a[0] = %g b[0] = %g\n", a[0], b[0]);
  return a[0] != 3 || b[0] != 10;
}
