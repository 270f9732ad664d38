// A missing map(to:) in a function called from main: x is mapped from:
// in a target teams distribute parallel for that reads it.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel 
// EXPECT-STDERR: _scale_l13 at find_fn_missing_to.c:13 read x[0:n] (declared at find_fn_missing_to.c:12) before anything wrote it; it was mapped with map(from) at find_fn_missing_to.c:13, which gives the device uninitialized memory: map(tofrom:) copies the host's values in (device 0 block 
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

static void scale(double *x, double *y, int n) {
#pragma omp target teams distribute parallel for map(from: x[0:n]) map(tofrom: y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = 2.0 * x[i] + y[i];
}

int main(void) {
  int n = 1000;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (int i = 0; i < n; i++) { x[i] = i; y[i] = 1; }
  scale(x, y, n);
  printf("y[10] = %g\n", y[10]);
  free(x); free(y);
  return 0;
}
