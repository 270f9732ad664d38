// An extra reference: A is entered twice, so `exit data map(from:)` only
// drops one reference and copies nothing; the kernel's results stay on the
// device.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: results not copied back: map(from) of a[0:n] (declared at find_extra_reference.c:13) at the data region exit at find_extra_reference.c:23 copied nothing because the mapping keeps 1 more reference (mapped at find_extra_reference.c:16), and the device copy differs from the host in 1000 of 8000 bytes
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  double *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target enter data map(to: a[0:n])
  /* ... later, elsewhere, the same data is entered again: */
#pragma omp target enter data map(to: a[0:n])
#pragma omp target
  for (int i = 0; i < n; i++)
    a[i] *= 2;
  /* The author expects the results back here: */
#pragma omp target exit data map(from: a[0:n])
  printf("a[3] = %g\n", a[3]);
  free(a);
  return 0;
}
