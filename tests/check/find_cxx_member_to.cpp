// C++: to where tofrom was needed for a class member's section, mapped in
// a member function (this->u[0:this->n]).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel 
// EXPECT-STDERR: __ZN6Solver4stepEv_l19 (find_cxx_member_to.cpp:19) changed 2000 of 8000 bytes of this->u[0:this->n] (declared at find_cxx_member_to.cpp:14), mapped with map(to) at find_cxx_member_to.cpp:19, and the target region at find_cxx_member_to.cpp:19 removed the mapping without copying them back; map(tofrom:) or map(from:) keeps them (device 0 block 
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <cstdio>
#include <vector>

class Solver {
  int n;
  double *u;
public:
  Solver(int n_) : n(n_), u(new double[n_]) { for (int i = 0; i < n; i++) u[i] = 1; }
  ~Solver() { delete[] u; }
  void step() {
#pragma omp target teams distribute parallel for map(to: u[0:n])
    for (int i = 0; i < n; i++)
      u[i] = u[i] * 2 + 1;
  }
  double at(int i) const { return u[i]; }
};

int main() {
  Solver s(1000);
  s.step();
  std::printf("u[5] = %g\n", s.at(5));
  return 0;
}
