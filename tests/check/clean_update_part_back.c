// A data region maps A with to; its kernel fills all of A, and the program
// brings back only the block it wants with a strided `target update from`
// (a[1:3][2:4]).  What it leaves on the device it leaves on purpose: no
// "result thrown away" finding.  (LLVM 14, 19 and 22 copy this strided
// section wrongly: 9 elements differ; ompemu copies exactly the block.)
// OMPEMU-RUN: --check
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: elements as expected: 48 of 48
#include <stdio.h>

int main(void) {
  int a[6][8];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 8; j++)
      a[i][j] = 0;
#pragma omp target data map(to: a)
  {
#pragma omp target
    for (int i = 0; i < 6; i++)
      for (int j = 0; j < 8; j++)
        a[i][j] = 100 * i + j;
#pragma omp target update from(a[1:3][2:4])
  }
  int good = 0;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 8; j++) {
      int want = i >= 1 && i < 4 && j >= 2 && j < 6 ? 100 * i + j : 0;
      good += a[i][j] == want;
    }
  printf("elements as expected: %d of 48\n", good);
  return good != 48;
}
