// A section with a lower bound whose device block starts on a page
// boundary (a[1:1024] of ints: 4096 bytes) and a kernel that reads a[0]:
// the address is on the guard page of the block below, and the fault is
// named after the block it is nearer to, the one starting 4 bytes above,
// not as thousands of bytes past the end of the other.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l20 at find_read_before_aligned.c:20: invalid read of device memory at 0x
// EXPECT-STDERR: 4 bytes before the start of the live data block [
// EXPECT-STDERR: ) of 4096 bytes (4 bytes before the start of variable a[1:1024] (declared at find_read_before_aligned.c:15)
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

int main(void) {
  static int a[1025];
  int s = 0;
  for (int i = 0; i < 1025; i++)
    a[i] = 1;
  /* a[0] is not mapped */
#pragma omp target map(to : a[1 : 1024]) map(tofrom : s)
  for (int i = 0; i < 1025; i++)
    s += a[i];
  printf("%d\n", s);
  return 0;
}
