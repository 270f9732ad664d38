// Two nowait kernels update an array through a pointer, with no map
// clause: the array was entered before, so each kernel gets a zero-length
// section of it (the pointer translated) and copies nothing.  No depend
// orders them: a race on all of a, found although neither region maps a
// byte of it.  ompemu runs them in source order, so a[0] is 8 every run.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: race between nowait target regions: the one at find_nowait_pointer_race.c:22 (kernel
// EXPECT-STDERR: and the one at find_nowait_pointer_race.c:25 (kernel
// EXPECT-STDERR: each uses a (declared at find_nowait_pointer_race.c:18): both write it
// EXPECT-STDOUT: a[0] = 8
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 10000;
  double *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++)
    a[i] = 1;
#pragma omp target enter data map(to: a[0:n])
#pragma omp target teams distribute parallel for nowait
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 2 + 1;
#pragma omp target teams distribute parallel for nowait
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 2 + 2;
#pragma omp taskwait
#pragma omp target exit data map(from: a[0:n])
  printf("a[0] = %g\n", a[0]);
  free(a);
  return 0;
}
