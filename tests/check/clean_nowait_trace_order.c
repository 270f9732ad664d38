// The trace of a checked run is the same every run with target nowait
// regions in flight together: check mode lets them run one at a time in
// source order, and each region's "Entering OpenMP kernel" line comes when
// it runs, with its own map lines, not when its task thread got there.
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_TRACE=1
// EXPECT-STDERR-IN-ORDER: ompemu: device 0: Entering OpenMP kernel at clean_nowait_trace_order.c:27:1, 1 arguments
// EXPECT-STDERR-IN-ORDER: ompemu: device 0: map a host [
// EXPECT-STDERR-IN-ORDER: ompemu: device 0: Entering OpenMP kernel at clean_nowait_trace_order.c:30:1, 1 arguments
// EXPECT-STDERR-IN-ORDER: ompemu: device 0: map b host [
// EXPECT-STDERR-IN-ORDER: ompemu: device 0: Entering OpenMP kernel at clean_nowait_trace_order.c:33:1, 1 arguments
// EXPECT-STDERR-IN-ORDER: ompemu: device 0: map c host [
// EXPECT-STDERR-IN-ORDER: ompemu: device 0: Entering OpenMP kernel at clean_nowait_trace_order.c:36:1, 1 arguments
// EXPECT-STDERR-IN-ORDER: ompemu: device 0: map d host [
// EXPECT-STDOUT: sum = 640
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

enum { N = 16 };

int main(void) {
  int a[N], b[N], c[N], d[N];
  for (int i = 0; i < N; i++)
    a[i] = b[i] = c[i] = d[i] = i;
#pragma omp parallel num_threads(1)
  {
#pragma omp target map(tofrom: a) nowait
    for (int i = 0; i < N; i++)
      a[i] += 1;
#pragma omp target map(tofrom: b) nowait
    for (int i = 0; i < N; i++)
      b[i] += 2;
#pragma omp target map(tofrom: c) nowait
    for (int i = 0; i < N; i++)
      c[i] += 3;
#pragma omp target map(tofrom: d) nowait
    for (int i = 0; i < N; i++)
      d[i] += 4;
#pragma omp taskwait
  }
  int sum = 0;
  for (int i = 0; i < N; i++)
    sum += a[i] + b[i] + c[i] + d[i];
  printf("sum = %d\n", sum);
  return 0;
}
