// Four nowait kernels with no depend between them update a counter kept
// on the device (entered before; each maps it tofrom, which copies
// nothing) with `atomic update`: correct, since the updates are atomic.
// ompemu cannot see atomics in device code, so two regions updating the
// same scalar of at most 16 bytes that was mapped before them are taken
// for such a counter: no finding.
// OMPEMU-RUN: --check
// EXPECT-STDOUT: counter = 4000
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

int main(void) {
  long counter = 0;
#pragma omp target enter data map(to: counter)
  for (int k = 0; k < 4; k++) {
#pragma omp target teams distribute parallel for nowait map(tofrom: counter)
    for (int i = 0; i < 1000; i++) {
#pragma omp atomic update
      counter += 1;
    }
  }
#pragma omp taskwait
#pragma omp target exit data map(from: counter)
  printf("counter = %ld\n", counter);
  return 0;
}
