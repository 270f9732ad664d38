// A 2-D section with a non-zero lower bound (rows 8.. mapped) whose kernel
// writes from row 4: device memory before the block is written.  The plugin
// finds it when the block is read back and names the variable, once.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: device 0: check: device memory before the start of the data block [
// EXPECT-STDERR: ) of 14336 bytes was written, up to 1018 bytes before it (variable a[8:64 - 8] (declared at find_oob_2d_lower.c:14), 
// EXPECT-STDERR: , map tofrom at find_oob_2d_lower.c:20); found when it was read back (the last kernel given the block: 
// EXPECT-STDERR: ompemu: check: no findings, but 1 error reported; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#define N 64
#define M 32
static double a[N][M];

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) a[i][j] = i + j;
  /* rows 8..N-1 sent, but the kernel reads from row 4 */
#pragma omp target teams distribute parallel for map(tofrom: a[8:N-8][0:M])
  for (int i = 4; i < N; i++)
    for (int j = 0; j < M; j++) a[i][j] += 1;
  printf("a[9][1] = %g\n", a[9][1]);
  return 0;
}
