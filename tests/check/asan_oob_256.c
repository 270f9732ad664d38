// Host and device code built with AddressSanitizer, default mode: a kernel
// reads one element past the end of an array of 8192 bytes, a multiple of
// the arena's 256-byte alignment, so no alignment slack follows it.  The
// arena gives such a block 256 bytes of poisoned slack when ASan is in the
// process; without it the read landed in the next block (sum) unseen.
// CFLAGS: -fsanitize=address
// REQUIRES: address
// RUN-ENV: ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
// EXPECT-EXIT: 1
// EXPECT-STDERR: ERROR: AddressSanitizer: use-after-poison on address 0x550000002100
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1024;
  double *a = malloc(n * sizeof *a), sum = 0;
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target map(to: a[0:n]) map(tofrom: sum)
  for (int i = 0; i <= n; i++) /* one past the end */
    sum += a[i];
  printf("sum %g: the read past the end was not caught\n", sum);
  free(a);
  return 0;
}
