// Host and device code built with AddressSanitizer: a kernel that reads one
// element past the end of a mapped array gets ASan's report, because the
// arena tells ASan what lies after each device block (check mode or not).
// CFLAGS: -fsanitize=address
// REQUIRES: address
// RUN-ENV: ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0
// EXPECT-EXIT: 1
// EXPECT-STDERR: ERROR: AddressSanitizer: use-after-poison on address 0x550000002040
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
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
