// use_device_ptr of a pointer to memory that is not mapped: with
// LIBOMPTARGET_INFO's 0x40 bit (empty mapping) the runtime says that the
// pointer has no device counterpart, as LLVM 19's does.
// CFLAGS: -g
// RUN-ENV: LIBOMPTARGET_INFO=64
// EXPECT-STDERR: info: variable p does not have a valid device counterpart
// SKIP-MODE-llvmrt: LLVM 14's runtime prints no such message
#include "check.h"

int main(void) {
  int *p = malloc(4 * sizeof *p);
  int *host = p;
#pragma omp target data use_device_ptr(p)
  host[0] = 1;
  CHECK(host[0] == 1, "host[0] = %d", host[0]);
  free(host);
  return tc_done();
}
