// target nowait regions run as tasks; taskwait waits for all of them.
#include "check.h"

#define N 4096

int main(void) {
  int *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
  for (int i = 0; i < N; i++) { a[i] = 0; b[i] = 0; }
#pragma omp target nowait map(tofrom: a[0:N])
  for (int i = 0; i < N; i++) a[i] = i;
#pragma omp target parallel for nowait map(tofrom: b[0:N])
  for (int i = 0; i < N; i++) b[i] = 2 * i;
#pragma omp taskwait
  for (int i = 0; i < N; i++) {
    if (a[i] != i || b[i] != 2 * i) {
      CHECK(a[i] == i && b[i] == 2 * i, "a[%d]=%d b[%d]=%d", i, a[i], i, b[i]);
      break;
    }
  }
  free(a);
  free(b);
  return tc_done();
}
