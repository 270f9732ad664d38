/* A C++ declare-target global with a constructor and a destructor: the
 * ctor runs at image load, the dtor at exit (LLVM 14 segfaults there). */
#include <cstdio>
struct S { int v; S() : v(7) {} ~S() { v = 0; } };
#pragma omp declare target
S s;
#pragma omp end declare target
int main() {
  int r = 0;
  #pragma omp target map(from: r)
  { r = s.v; }
  std::printf("r=%d\n", r);
  return r == 7 ? 0 : 1;
}
