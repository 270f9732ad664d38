// declare target link: the device refers to the host variable through a
// reference pointer that the runtime fills when the variable is mapped.
// Clang 14 gives the device image no entry for the pointer, so LLVM 14's
// x86_64 plugin pairs host and device entries by position and runs the
// wrong kernel or crashes (docs/abi-clang14.md §9); ompemu pairs them by name.
// LLVM 14's runtime pairs by index too, which works with the emu plugin
// because its table follows the host entries' order.
// LLVM14-FAILS: entry tables mismatch, wrong kernel or SIGSEGV (§9)
#include "check.h"

int big[1000];
double lk = 1.25;
#pragma omp declare target link(big, lk)

int first(void) {
  int r = 0;
#pragma omp target map(tofrom: big[0:10]) map(from: r)
  {
    for (int i = 0; i < 10; i++) big[i] += 1;
    r = 11;
  }
  return r;
}

int second(void) {
  int r = 0;
#pragma omp target map(tofrom: lk) map(from: r)
  {
    lk *= 4;
    r = 22;
  }
  return r;
}

int main(void) {
  for (int i = 0; i < 1000; i++) big[i] = i;
  CHECK(first() == 11, "first kernel gave a wrong result");
  CHECK(second() == 22, "second kernel gave a wrong result");
  for (int i = 0; i < 12; i++) {
    int want = i < 10 ? i + 1 : i;
    CHECK(big[i] == want, "big[%d] = %d, want %d", i, big[i], want);
  }
  CHECK(lk == 5.0, "lk = %g", lk);
  /* mapped with enter data: the reference stays valid across regions */
#pragma omp target enter data map(to: big[0:1000])
#pragma omp target
  for (int i = 0; i < 1000; i++) big[i] = 2 * i;
#pragma omp target exit data map(from: big[0:1000])
  CHECK(big[999] == 1998 && big[5] == 10, "big[999] = %d big[5] = %d", big[999], big[5]);
  return tc_done();
}
