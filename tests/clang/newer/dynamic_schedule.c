// A non-static loop schedule inside a target region: clang 19 and 22
// device images import __kmpc_dispatch_deinit, which libomp 14 lacks, so
// the run needs libomp 19 (the pkg-config way: LLVM 19's libomp first in
// LD_LIBRARY_PATH; the Debian way has it already).
// NEEDS-LIBOMP: 19
#include "check.h"

#define N 1000

int main(void) {
  int a[N];
  long sum = 0;
  for (int i = 0; i < N; i++) a[i] = 0;
#pragma omp target teams distribute parallel for schedule(dynamic, 7) map(tofrom: a)
  for (int i = 0; i < N; i++) a[i] = i + 1;
#pragma omp target parallel for schedule(guided) reduction(+ : sum) map(to: a)
  for (int i = 0; i < N; i++) sum += a[i];
  CHECK(sum == (long)N * (N + 1) / 2, "sum = %ld", sum);
  CHECK(a[0] == 1 && a[N - 1] == N, "a = %d .. %d", a[0], a[N - 1]);
  return tc_done();
}
