// One exit data construct that names the same storage twice (an array
// section and the same section through a second pointer): OpenMP removes
// it once.  delete sets the reference count to zero whatever it was; from
// at the last reference copies the device's values back.  Each construct
// must succeed and leave the storage unmapped.
// SKIP-MODE-llvmrt: LLVM 14's runtime removes the entry once per list item and fails the second time
// LLVM14-FAILS: its runtime removes the entry once per list item: "Section to delete ... does not exist"
#include "check.h"
#include <omp.h>

#define N 64

int main(void) {
  int dev = omp_get_default_device();
  int *a = malloc(N * sizeof *a);
  int *p = a;
  for (int i = 0; i < N; i++) a[i] = 1;

#pragma omp target enter data map(to: a[0:N])
#pragma omp target enter data map(to: a[0:N])
#pragma omp target exit data map(delete: a[0:N], p[0:N])
  CHECK(!omp_target_is_present(a, dev), "present after delete of a and p");

#pragma omp target enter data map(to: a[0:N])
#pragma omp target map(alloc: a[0:N])
  for (int i = 0; i < N; i++) a[i] += i;
#pragma omp target exit data map(from: a[0:N], p[0:N])
  CHECK(!omp_target_is_present(a, dev), "present after from of a and p");
  for (int i = 0; i < N; i++)
    if (a[i] != 1 + i) { CHECK(a[i] == 1 + i, "a[%d] = %d", i, a[i]); break; }
  free(a);
  return tc_done();
}
