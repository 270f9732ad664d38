// A declare-target global used as a loop counter on both sides: the host
// changes it in its own loops, and every kernel that uses it writes it
// before reading.  The kernel that starts first does not use it at all.
// The device copy is the device's own variable, so check mode reports
// nothing (the OpenMP V&V suite's nested declare target test does this).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: on device = 1, a[9] = 5
#include <omp.h>
#include <stdio.h>

enum { N = 64 };

#pragma omp declare target
int a[N];
int i = 0;
#pragma omp end declare target

int main(void) {
  int on_device = 0;
  for (i = 0; i < N; i++)
    a[i] = i;
#pragma omp target update to(a)
#pragma omp target map(from: on_device)
  on_device = !omp_is_initial_device();
#pragma omp target
  for (i = 0; i < N; i++)
    a[i] = 5;
#pragma omp target update from(a)
  printf("on device = %d, a[9] = %d\n", on_device, a[9]);
  return 0;
}
