// depend clauses order nowait target regions, enter/exit data and host
// tasks: a chain out -> inout -> in must see each step's result.
#include "check.h"

#define N 1000

int main(void) {
  int *x = malloc(N * sizeof *x);
  long total = 0;
  for (int i = 0; i < N; i++) x[i] = 1;
#pragma omp parallel
#pragma omp single
  {
#pragma omp target enter data map(to: x[0:N]) depend(out: x[0]) nowait
#pragma omp target nowait depend(inout: x[0]) map(tofrom: x[0:N])
    for (int i = 0; i < N; i++) x[i] += i;
#pragma omp target nowait depend(inout: x[0]) map(tofrom: x[0:N])
    for (int i = 0; i < N; i++) x[i] *= 2;
#pragma omp target exit data map(from: x[0:N]) depend(inout: x[0]) nowait
#pragma omp task depend(in: x[0]) shared(total)
    {
      for (int i = 0; i < N; i++) total += x[i];
    }
#pragma omp taskwait
  }
  long want = 0;
  for (int i = 0; i < N; i++) want += 2 * (1 + i);
  CHECK(total == want, "total %ld, want %ld", total, want);
  for (int i = 0; i < N; i++)
    if (x[i] != 2 * (1 + i)) { CHECK(x[i] == 2 * (1 + i), "x[%d] = %d", i, x[i]); break; }
  free(x);
  return tc_done();
}
