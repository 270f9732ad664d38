// A kernel that cannot start makes its construct fail: the emu plugin
// fails the second launch (OMPEMU_INJECT=launch:2, the path a failed libffi
// preparation takes), names the kernel and the device once, and the
// runtime gives LLVM's fatal error under OMP_TARGET_OFFLOAD=mandatory
// instead of going on with the data the kernel never wrote.
// RUN-ENV: OMPEMU_INJECT=launch:2
// EXPECT-EXIT: 134
// EXPECT-STDOUT: first construct: 8
// EXPECT-STDERR: emu: error: device 0: kernel __omp_offloading_
// EXPECT-STDERR: _main_l26 (0x0000554000
// EXPECT-STDERR: could not start: injected fault (OMPEMU_INJECT=launch:2)
// EXPECT-STDERR: Libomptarget fatal error 1: failure of target construct while offloading is mandatory
// SKIP-MODE-x86: the fault is injected by ompemu's emu plugin; LLVM's x86_64 plugin runs the kernels here
// SKIP-MODE-llvm: the fault is injected by ompemu's emu plugin
#include <stdio.h>

int main(void) {
  int a[8] = {0};
#pragma omp target map(tofrom: a)
  for (int i = 0; i < 8; i++)
    a[i] = i + 1;
  printf("first construct: %d\n", a[7]);
  fflush(stdout);
  /* The second launch fails: with LLVM 14's own semantics the program
   * must not get here. */
#pragma omp target teams distribute parallel for map(tofrom: a)
  for (int i = 0; i < 8; i++)
    a[i] = -1;
  printf("not reached: a[7] = %d\n", a[7]);
  return 0;
}
