// A map(present:) of data that is not mapped is a mapping error; with
// OMP_TARGET_OFFLOAD=mandatory the runtime prints LLVM's messages and
// aborts.
// CFLAGS: -fopenmp-version=51
// RUN-ENV: OMP_TARGET_OFFLOAD=mandatory
// EXPECT-EXIT: 134
// EXPECT-STDERR: Libomptarget message: device mapping required by 'present' map type modifier does not exist for host address 0x
// EXPECT-STDERR: Libomptarget error: Call to getTargetPointer returned null pointer ('present' map type modifier).
// EXPECT-STDERR: Libomptarget fatal error 1: failure of target construct while offloading is mandatory
// EXPECT-STDOUT: before
#include <stdio.h>

int main(void) {
  int a[8] = {0};
  printf("before\n");
  fflush(stdout);
#pragma omp target map(present, tofrom: a)
  a[0] = 1;
  printf("not reached: a[0] = %d\n", a[0]);
  return 0;
}
