// A target data region maps a with `to`; its first kernel doubles a, the
// second only reads it.  The changes are thrown away at the end of the
// data region, and the finding names the kernel that made them (the
// first), not the last kernel given the block.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel __omp_offloading_
// EXPECT-STDERR: _main_l21 (find_lost_result_writer.c:21) changed 1000 of 8000 bytes of a[0:1000]
// EXPECT-STDOUT: b[10] = 21
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

#define N 1000

int main(void) {
  double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target data map(to: a[0:N]) map(from: b[0:N])
  {
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      a[i] = a[i] * 2;
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      b[i] = a[i] + 1;
  }
  printf("b[10] = %g\n", b[10]);
  return 0;
}
