// C++ lambdas called in target regions: a lambda capturing a pointer by
// value and one capturing by reference; the runtime patches the device
// copy of the closure with device pointers.
// The by-reference lambda holds the address of the pointer variable A,
// which is not mapped (only A[0:N] is): device code reading A through it
// reads host memory, which works here and faults on a GPU; check mode
// reports it.
// CHECK-FINDING: dereferenced host pointer
#include "check.h"

#define N 100

int main() {
  int *a = new int[N];
  int scale = 3;
  for (int i = 0; i < N; i++) a[i] = i;
  auto byval = [=](int i) { a[i] = a[i] * scale; };
#pragma omp target map(tofrom: a[0:N])
  for (int i = 0; i < N; i++) byval(i);
  for (int i = 0; i < N; i++) CHECK(a[i] == 3 * i, "a[%d] = %d", i, a[i]);
  int total = 0;
  auto byref = [&](int i) { total += a[i]; };
#pragma omp target map(to: a[0:N]) map(tofrom: total)
  for (int i = 0; i < N; i++) byref(i);
  CHECK(total == 3 * N * (N - 1) / 2, "total %d", total);
  delete[] a;
  return tc_done();
}
