// use_device_ptr and use_device_addr of storage nothing maps: the variable
// keeps its original (host) value in the data region, as OpenMP 5.1 says
// (the storage is taken to be device accessible already) and LLVM 22's
// runtime does; LLVM 14 to 19 gave NULL.  A mapped one still gets its
// device address.
// LLVM14-FAILS: LLVM 14 gives NULL for an unmapped use_device_ptr/addr
// SKIP-MODE-llvmrt: LLVM 14's runtime gives NULL for an unmapped use_device_ptr/addr
#include "check.h"

int main(void) {
  int x[4] = {0, 1, 2, 3};
  int *p = x;
  void *by_addr = NULL, *by_ptr = NULL, *mapped = NULL;
#pragma omp target data use_device_addr(x)
  by_addr = (void *)x;
#pragma omp target data use_device_ptr(p)
  by_ptr = (void *)p;
  CHECK(by_addr == (void *)x, "use_device_addr(x) of unmapped x gave %p, "
        "not x (%p)", by_addr, (void *)x);
  CHECK(by_ptr == (void *)x, "use_device_ptr(p) of unmapped p[] gave %p, "
        "not p (%p)", by_ptr, (void *)x);
#pragma omp target data map(to: x)
  {
#pragma omp target data use_device_addr(x)
    mapped = (void *)x;
  }
  CHECK(mapped && mapped != (void *)x, "use_device_addr(x) of mapped x "
        "gave %p", mapped);
  return tc_done();
}
