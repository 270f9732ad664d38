// C++ declare-target globals with constructors and destructors: the
// device copies are constructed when the image is loaded (the device sees
// the constructed values) and destroyed at unload.  LLVM 14 with its
// x86_64 plugin segfaults in __tgt_unregister_lib at exit (docs/abi-clang14-runtime.md
// §7.1); LLVM 14's runtime with the emu plugin does not.
// The device destructors report themselves on stderr, in reverse order of
// construction (D first), with the values the kernel left.
// LLVM14-FAILS: SIGSEGV at exit in __tgt_unregister_lib (§7.1)
// EXPECT-STDERR: ~Counter on the device: id 2 value 42
// EXPECT-STDERR: ~Counter on the device: id 1 value 7
// In check mode, C.value changed on the host only is a stale global (on
// purpose here).
// CHECK-FINDING: stale declare target variable C: its host copy changed
#include "check.h"
#include <omp.h>
#include <stdio.h>

#pragma omp declare target
static int next_id;
struct Counter {
  int id;
  int value;
  int data[4];
  Counter() : id(++next_id), value(42) {
    for (int i = 0; i < 4; i++) data[i] = i * 11;
  }
  ~Counter() {
    if (!omp_is_initial_device())
      fprintf(stderr, "~Counter on the device: id %d value %d\n", id, value);
    value = -1;
  }
  int get() const { return value + data[3]; }
};
Counter C;
Counter D;
#pragma omp end declare target

int main() {
  int r = 0, r2 = 0;
  C.value = 1; // host copy only
#pragma omp target map(from: r, r2)
  {
    r = C.get();
    r2 = D.data[2] + 100 * (D.id - C.id);
    C.value = 7;
  }
  CHECK(r == 42 + 33, "device C.get() = %d, want 75 (constructed on the device)", r);
  CHECK(r2 == 122, "device D.data[2] + 100 * (D.id - C.id) = %d, want 122", r2);
  CHECK(C.value == 1, "host C.value = %d", C.value);
#pragma omp target update from(C)
  CHECK(C.value == 7, "after update from: C.value = %d", C.value);
  return tc_done();
}
