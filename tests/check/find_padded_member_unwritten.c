// The twin of clean_padding_bitfield_from.c with a bug: the kernel writes
// every field but v[1] of a struct with padding, so the poison in v[1]
// (data, not padding) reaches the host.  Found, and only those bytes
// counted: 8 of each 64-byte element.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory copied to the host: 512 of 4096 bytes of s[0:64] (declared at find_padded_member_unwritten.c:18) (map from) that no copy or kernel wrote, at the target region at find_padded_member_unwritten.c:19
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

#define N 64
struct aligned {
  int id;
  _Alignas(32) double v[2];
};

int main(void) {
  struct aligned s[N];
#pragma omp target teams distribute parallel for map(from: s[0:N])
  for (int i = 0; i < N; i++) {
    s[i].id = i;
    s[i].v[0] = i; /* v[1] forgotten */
  }
  printf("s[3] = %d %g\n", s[3].id, s[3].v[0]);
  return 0;
}
