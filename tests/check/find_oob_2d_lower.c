// A 2-D section with a non-zero lower bound (rows 8.. mapped) whose kernel
// updates from row 4 (`+=`: a read, then a write): the read before the
// block is a finding as the kernel returns (check_slack.c), and the plugin
// finds the write when the block is read back; each names the variable,
// once.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: device 0: check: device memory before the start of the data block [
// EXPECT-STDERR: ) of 14336 bytes was written, up to 1018 bytes before it (variable a[8:64 - 8] (declared at find_oob_2d_lower.c:18), 
// EXPECT-STDERR: , map tofrom at find_oob_2d_lower.c:24); found when it was read back (the last kernel given the block: 
// EXPECT-STDERR: ompemu: check: out-of-bounds device read: kernel __omp_offloading_
// EXPECT-STDERR: read device memory before the start of a[8:64 - 8] (declared at find_oob_2d_lower.c:18), mapped with map(tofrom) at find_oob_2d_lower.c:24
// EXPECT-STDERR: ompemu: check: 1 finding, 1 other error reported; exit status 99
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
