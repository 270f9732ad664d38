// A pointer whose array is mapped from a later element on (a[16:32]):
// a target region that uses the pointer implicitly, and use_device_ptr,
// get the device counterpart of a[0] (the mapped section's device address
// minus 16 elements), as LLVM 19's runtime does; LLVM 14's passes the
// host pointer on, and the kernel then writes the host's array.
// LLVM14-FAILS: passes the host pointer to the kernel and to use_device_ptr
// SKIP-MODE-llvmrt: LLVM 14's runtime passes the host pointer on
#include "check.h"

enum { N = 64, FROM = 16, LEN = 32 };

int main(void) {
  float *a = malloc(N * sizeof *a);
  for (int i = 0; i < N; i++)
    a[i] = (float)i;
#pragma omp target enter data map(to : a[FROM : LEN])
#pragma omp target
  for (int i = FROM; i < FROM + LEN; i++)
    a[i] += 1000;
  CHECK(a[FROM] == FROM && a[FROM + LEN - 1] == FROM + LEN - 1,
        "the kernel wrote the host's array: a[%d] = %g", FROM, a[FROM]);
  float *dev = NULL;
#pragma omp target data use_device_ptr(a)
  dev = a;
  CHECK(dev != a, "use_device_ptr(a) gave the host pointer %p", (void *)a);
  float first = 0, last = 0;
  if (dev != a) {
#pragma omp target is_device_ptr(dev) map(from : first, last)
    {
      first = dev[FROM];
      last = dev[FROM + LEN - 1];
    }
  }
  CHECK(first == FROM + 1000 && last == FROM + LEN - 1 + 1000,
        "through use_device_ptr(a): a[%d] = %g, a[%d] = %g on the device", FROM,
        first, FROM + LEN - 1, last);
#pragma omp target exit data map(from : a[FROM : LEN])
  for (int i = 0; i < N; i++) {
    float want = i >= FROM && i < FROM + LEN ? i + 1000 : i;
    CHECK(a[i] == want, "a[%d] = %g, want %g", i, a[i], want);
  }
  free(a);
  return tc_done();
}
