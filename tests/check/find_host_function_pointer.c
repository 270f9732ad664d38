// A host function called through a pointer in device code: a struct of
// work carries its callback, mapped with the struct, and the kernel calls
// it.  On ompemu's device, in the host's process, the host's function
// would just run; on a GPU the call crashes (only a `declare target
// indirect` function may be called through a pointer taken on the host).
// Check mode gives the device copy of the pointer an alias that faults
// when called, named with the struct, the function's line and the
// construct's.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l29 at find_host_function_pointer.c:29 called host function pointer 0x
// EXPECT-STDERR: (the pointer w.scale at offset 0 of w (map tofrom), which points to the host function halve at find_host_function_pointer.c:21, copied at find_host_function_pointer.c:29): device code can only call functions compiled for the device
// EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
#include <stdio.h>

struct work {
  double (*scale)(double);
  double v[8];
};

static double halve(double x) { return x / 2; }

int main(void) {
  struct work w = {halve, {0}};
  for (int i = 0; i < 8; i++)
    w.v[i] = i;
  /* Wrong: halve exists on the host only, and the kernel calls it
   * through the struct's pointer. */
#pragma omp target map(tofrom: w)
  for (int i = 0; i < 8; i++)
    w.v[i] = w.scale(w.v[i]);
  printf("%g\n", w.v[7]);
  return 0;
}
