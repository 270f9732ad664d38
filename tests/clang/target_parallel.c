// target parallel with num_threads: each thread writes its own slot;
// target parallel for covers a loop.
#include "check.h"
#include <omp.h>

int main(void) {
  int ids[8], n = 0;
  for (int i = 0; i < 8; i++) ids[i] = -1;
#pragma omp target parallel num_threads(2) map(tofrom: ids, n)
  {
    int t = omp_get_thread_num();
    ids[t] = t;
    if (t == 0) n = omp_get_num_threads();
  }
  CHECK(n >= 1 && n <= 2, "num_threads(2) gave %d", n);
  for (int t = 0; t < n; t++) CHECK(ids[t] == t, "ids[%d] = %d", t, ids[t]);
  for (int t = n; t < 8; t++) CHECK(ids[t] == -1, "ids[%d] = %d written", t, ids[t]);

  int sq[200];
#pragma omp target parallel for map(from: sq)
  for (int i = 0; i < 200; i++) sq[i] = i * i;
  for (int i = 0; i < 200; i++) CHECK(sq[i] == i * i, "sq[%d] = %d", i, sq[i]);
  return tc_done();
}
