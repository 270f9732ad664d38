/* The program of tests/ompt/run.sh: enter data, a target region with a
 * tofrom map (and the entered array present), an update, exit data, and a
 * nowait region.  It prints the host addresses of its arrays so the test
 * can name them in the tool's output. */
#include <stdio.h>

#define N 256
static double a[N], b[N];

int main(void) {
  printf("ADDR a %p\nADDR b %p\n", (void *)a, (void *)b);
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target enter data map(to: a)
#pragma omp target map(tofrom: b)
  for (int i = 0; i < N; i++)
    b[i] = a[i] + 1;
#pragma omp target update from(a)
#pragma omp target exit data map(from: a)
#pragma omp target map(tofrom: b) nowait
  for (int i = 0; i < N; i++)
    b[i] *= 2;
#pragma omp taskwait
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += b[i] != 2.0 * (i + 1);
  printf("target_ops: %s\n", bad ? "FAILED" : "ok");
  return bad != 0;
}
