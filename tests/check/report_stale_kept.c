// A scalar kept mapped by an enter data, changed on the host, then mapped
// again by the target region that reads it: the map copies nothing and the
// kernel reads the old value.  OpenMP allows this (programs test it on
// purpose), so it is no finding but a line of the data-movement report
// (a data construct's stale scalar is not even that: see
// clean_enter_scalar_loop.c).
// OMPEMU-RUN: --check
// EXPECT-STDERR: stale device data kept (map with to of data still mapped, changed on the host since: `target update to` or map(always, to:) sends it): 1, 4 bytes
// EXPECT-STDERR:                4 bytes  scale (declared at report_stale_kept.c:16), 1 time at report_stale_kept.c:19
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: out = 20
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
