// A member function's kernel uses a pointer member through the implicit
// `this`: clang maps the object (no name of its own) and copies its
// members, but nothing maps what d points to.  The finding names the
// object as *this and the pointer as this->d, from the member's own map
// entry, not "the pointer at offset 0 of this->d".
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _ZN5Scale5applyEv_l22 at find_this_member.cpp:22 dereferenced host pointer 0x
// EXPECT-STDERR: (the pointer this->d at offset 0 of *this, copied at find_this_member.cpp:22) + 0 (read at
// RUN-TWICE-SAME-STDERR
#include <cstdio>

/* Static, so the host address in the message is the same every run. */
static double store[8];

struct Scale {
  double *d;
  int n;
  double by;
  void apply() {
    // Missing: map(tofrom: d[0:n])
#pragma omp target
    for (int i = 0; i < n; i++)
      d[i] *= by;
  }
};

int main() {
  for (int i = 0; i < 8; i++)
    store[i] = i;
  Scale s{store, 8, 2.0};
  s.apply();
  std::printf("%g\n", store[3]);
  return 0;
}
