// A map the device has no room for fails its construct: the plugin's "out
// of device memory" warning is followed by the runtime's errors, which
// count in the checked run (and LLVM's fatal error ends it).
// OMPEMU-RUN: --check
// RUN-ENV: OMPEMU_DEVICE_MEMORY=1M
// EXPECT-EXIT: 134
// EXPECT-STDERR: emu: warning: device 0: out of device memory: request of 4194304 bytes
// EXPECT-STDERR: Libomptarget error: Call to getTargetPointer returned null pointer (device failure or illegal mapping).
// EXPECT-STDERR: Libomptarget fatal error 1: failure of target construct while offloading is mandatory
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  size_t n = 4u << 20;
  char *a = calloc(n, 1);
#pragma omp target map(tofrom: a[0:n])
  a[0] = 1;
  printf("a[0] = %d\n", a[0]);
  free(a);
  return 0;
}
