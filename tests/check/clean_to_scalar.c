// A scalar in map(to:) written on the device: the region works on its own
// copy (as with firstprivate), the write is discarded by definition and the
// host reads its own value afterwards.  The OpenMP V&V suite's
// shared-memory probe does this in many tests; check mode reports nothing.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: shared = 0, on device = 1
#include <omp.h>
#include <stdio.h>

int main(void) {
  int shared = 0, on_device = 0;
#pragma omp target map(from: on_device) map(to: shared)
  {
    on_device = !omp_is_initial_device();
    shared = 1;
  }
  printf("shared = %d, on device = %d\n", shared, on_device);
  return 0;
}
