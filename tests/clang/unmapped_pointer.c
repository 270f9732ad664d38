// Unmapped pointers keep their value (OpenMP 5.1; issue 15 item 1): a
// function pointer captured implicitly and one passed firstprivate, called
// on the device (the emu device runs in the host process, so a host
// function pointer can be called there), and a data pointer that nothing
// maps, used only as a value.  clang 14 lowers these as zero-length
// sections; LLVM 14's runtime passed NULL and the kernel crashed.
// Calling a host function through a pointer works here and crashes on a
// GPU (only a `declare target indirect` function may be called so): check
// mode reports the first call and stops there.
// CHECK-FINDING: called host function pointer
// SKIP-MODE-llvmrt: LLVM 14's own runtime passes unmapped pointers as NULL (docs/abi-clang14.md section 13.6)
#include "check.h"
#include <stdint.h>

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }

int main(void) {
  int (*fp)(int) = twice;
  int (*gp)(int) = thrice;
  int got = 0, got2 = 0;
#pragma omp target map(from: got)
  got = fp(21);
  CHECK(got == 42, "implicit function pointer: got %d", got);
#pragma omp target firstprivate(gp) map(from: got2)
  got2 = gp(5);
  CHECK(got2 == 15, "firstprivate function pointer: got %d", got2);

  int local = 7;
  int *dp = &local; /* not mapped, not dereferenced on the device */
  uintptr_t seen = 1;
#pragma omp target map(from: seen)
  seen = (uintptr_t)dp;
  CHECK(seen == (uintptr_t)&local, "unmapped data pointer: device saw %#lx, host %p",
        (unsigned long)seen, (void *)&local);
  return tc_done();
}
