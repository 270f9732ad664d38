// A scalar mapped `to` by an enter data in a loop and never exited: from
// the second round on, the map copies nothing and the device keeps the
// first value.  No kernel reads that copy (the kernel gets n by value,
// as OpenMP makes scalars firstprivate), so check mode reports nothing.
// The OpenMP V&V suite's `if` tests for enter data do this.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: sum = 2560
#include <stdio.h>

enum { MAX = 1024 };

int main(void) {
  int a[MAX];
  long sum = 0;
  for (int n = 256; n <= MAX; n += 256) {
    for (int i = 0; i < n; i++)
      a[i] = 1;
#pragma omp target enter data map(to: n) map(to: a[0:n])
#pragma omp target map(tofrom: a[0:n])
    for (int i = 0; i < n; i++)
      a[i] += 1;
#pragma omp target exit data map(from: a[0:n])
    for (int i = 0; i < n; i++)
      sum += a[i];
  }
  printf("sum = %ld\n", sum / 2);
  return 0;
}
