// Missing map(to:): the kernel reads A, which is mapped from: (it should
// be to: or tofrom:), so nothing copies it in and the kernel reads
// uninitialized device memory; the copy back at the end of the region puts
// that memory on the host.  The finding names A, the map type and the line.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory copied to the host: 8000 of 8000 bytes of a (declared at find_missing_to.c:16) (map from) that no copy or kernel wrote, at the target region at find_missing_to.c:19
// EXPECT-STDERR: the last to run with it: kernel __omp_offloading_
// EXPECT-STDERR: _main_l19 (find_missing_to.c:19)
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

enum { N = 1000 };

int main(void) {
  double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp target map(from: a, b)
  for (int i = 0; i < N; i++)
    b[i] = a[i] + 1;
  printf("b[1] = %g\n", b[1]);
  return 0;
}
