// The same array mapped twice by one construct: map(to: a) and
// map(from: a[0:10]).  The from section is not the last reference to the
// storage (the to holds one too), so nothing is copied back and the
// kernel's result is lost; OpenMP requires both maps to cover the same
// elements.  The finding says that nothing was copied back, and why,
// rather than that the section was too short.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel __omp_offloading_
// EXPECT-STDERR: changed 4 of 200 bytes of a (declared at find_from_mapped_twice.c:16), mapped with map(to) at find_from_mapped_twice.c:19, and the target region at find_from_mapped_twice.c:19 copied nothing back: its map(from) of 40 bytes at offset 0 maps storage the construct maps again
// EXPECT-STDOUT: a[1] = 1
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

int main(void) {
  int a[50];
  for (int i = 0; i < 50; i++)
    a[i] = i;
#pragma omp target map(to: a) map(from: a[0:10])
  a[1] = -1;
  printf("a[1] = %d\n", a[1]);
  return 0;
}
