// An exit data with map(release:) where map(from:) was needed: enter data
// sent HIST, a kernel filled it, and the release removes the mapping
// without copying the counts back.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel __omp_offloading_
// EXPECT-STDERR: _main_l20 (find_release_not_from.c:20) changed 16 of 64 bytes of hist[0:16] (declared at find_release_not_from.c:13), mapped with map(to) at find_release_not_from.c:19, and the data region exit at find_release_not_from.c:23 removed the mapping with map(release) without copying them back
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int *hist = calloc(16, sizeof *hist);
  unsigned char key[300];
  for (int i = 0; i < 300; i++)
    key[i] = (unsigned char)(i * 7);
  for (int i = 0; i < 16; i++)
    hist[i] = 0;
#pragma omp target enter data map(to: hist[0:16])
#pragma omp target map(to: key)
  for (int i = 0; i < 300; i++)
    hist[key[i] % 16] += 1;
#pragma omp target exit data map(release: hist[0:16])
  printf("hist[3] = %d\n", hist[3]);
  free(hist);
  return 0;
}
