// A scalar kept mapped by an enter data, changed on the host, then mapped
// again by the target region that reads it: the map copies nothing and the
// kernel reads the old value.  Stale data, reported at the target region
// (a data construct's stale scalar alone is not: see
// clean_enter_scalar_loop.c).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: stale device data: map(tofrom) of scale (declared at find_stale_scalar_target.c:14) at the target region at find_stale_scalar_target.c:17 copied nothing because it is still mapped
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

int main(void) {
  int scale = 2, out = 0;
#pragma omp target enter data map(to: scale)
  scale = 3;
#pragma omp target map(tofrom: scale) map(from: out)
  out = 10 * scale;
  printf("out = %d\n", out);
#pragma omp target exit data map(delete: scale)
  return 0;
}
