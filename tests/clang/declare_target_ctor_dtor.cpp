// C++ declare-target globals with constructors and destructors: the
// device copies are constructed when the image is loaded (the device sees
// the constructed values) and destroyed at unload.  LLVM 14 segfaults in
// __tgt_unregister_lib at exit (ABI-llvm14.md §7.1).
// LLVM14-FAILS: SIGSEGV at exit in __tgt_unregister_lib (§7.1)
// SKIP-MODE-llvmrt: LLVM 14's runtime segfaults at exit running device destructors (§7.1)
#include "check.h"

#pragma omp declare target
struct Counter {
  int value;
  int data[4];
  Counter() : value(42) {
    for (int i = 0; i < 4; i++) data[i] = i * 11;
  }
  ~Counter() { value = -1; }
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
    r2 = D.data[2];
    C.value = 7;
  }
  CHECK(r == 42 + 33, "device C.get() = %d, want 75 (constructed on the device)", r);
  CHECK(r2 == 22, "device D.data[2] = %d", r2);
  CHECK(C.value == 1, "host C.value = %d", C.value);
#pragma omp target update from(C)
  CHECK(C.value == 7, "after update from: C.value = %d", C.value);
  return tc_done();
}
