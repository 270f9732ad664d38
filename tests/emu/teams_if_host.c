/* The part of issue 15 item 2 ompemu cannot fix with libomp 14: the host
 * thread itself leads a real parallel team, then a
 * `target teams distribute parallel for if(c)` with c false runs on it
 * (the if keeps the construct on the host, as a teams construct of one
 * team with a serialized parallel region).  libomp 14 aborts there
 * (kmp_runtime.cpp:1122); it is libomp's own state of the user's thread,
 * which no plugin runs or resets.  libomp 19 runs it. */
#include <omp.h>
#include <stdio.h>

#define N 100

int main(int argc, char **argv) {
  (void)argv;
  int c = argc > 100, a[N], bad = 0;
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target teams distribute parallel for if(c) map(tofrom: a)
  for (int i = 0; i < N; i++)
    a[i] += 1;
  for (int i = 0; i < N; i++)
    bad += a[i] != i + 1;
  printf("teams_if_host: %d wrong\n", bad);
  return bad != 0;
}
