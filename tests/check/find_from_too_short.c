// An exit data whose map(from:) section covers only part of the results:
// the kernel writes all of OUT, the exit data copies back the first half
// and removes the mapping.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel __omp_offloading_
// EXPECT-STDERR: _main_l18 (find_from_too_short.c:18) changed 300 of 1600 bytes of out[0:n] (declared at find_from_too_short.c:14), mapped with map(to) at find_from_too_short.c:17, and the data region exit at find_from_too_short.c:21 copied back only 800 bytes at offset 0 (map(from)) before removing the mapping
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 200;
  double *out = malloc(n * sizeof *out);
  for (int i = 0; i < n; i++)
    out[i] = 0;
#pragma omp target enter data map(to: out[0:n])
#pragma omp target
  for (int i = 0; i < n; i++)
    out[i] = i + 0.5;
#pragma omp target exit data map(from: out[0:n / 2])
  printf("out[150] = %g\n", out[150]);
  free(out);
  return 0;
}
