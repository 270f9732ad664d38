// map(from:) where tofrom was needed: the kernel adds to ACC, whose device
// copy map(from:) leaves uninitialized.  The result is the poison plus the
// sums, which no later check can tell from data; in check mode the
// block's pages are watched while the kernel runs, so its first read of a
// byte nothing wrote is reported.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel __omp_offloading_
// EXPECT-STDERR: _main_l23 at find_from_read.c:23 read acc[0:n] (declared at find_from_read.c:17) before anything wrote it; it was mapped with map(from) at find_from_read.c:23, which gives the device uninitialized memory: map(tofrom:) copies the host's values in
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  long *acc = malloc(n * sizeof *acc), *out = malloc(n * sizeof *out);
  for (int i = 0; i < n; i++) {
    acc[i] = 0;
    out[i] = 0;
  }
  /* OUT is written before it is read: no finding. */
#pragma omp target map(from: acc[0:n], out[0:n])
  for (int i = 0; i < n; i++) {
    out[i] = i;
    acc[i] += out[i];
  }
  printf("acc[10] = %ld\n", acc[10]);
  free(acc);
  free(out);
  return 0;
}
