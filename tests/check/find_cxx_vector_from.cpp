// C++: a missing map(to:) on std::vector data(): px is mapped from: in a
// function's target teams distribute parallel for that reads it.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: uninitialized device memory read: kernel 
// EXPECT-STDERR: __ZL5saxpyRSt6vectorIfSaIfEERKS1_f_l16 at find_cxx_vector_from.cpp:16 read px[0:n] (declared at find_cxx_vector_from.cpp:14) before anything wrote it; it was mapped with map(from) at find_cxx_vector_from.cpp:16, which gives the device uninitialized memory: map(tofrom:) copies the host's values in (device 0 block 
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <cstdio>
#include <vector>

static void saxpy(std::vector<float> &y, const std::vector<float> &x, float a) {
  float *py = y.data();
  const float *px = x.data();
  int n = (int)y.size();
#pragma omp target teams distribute parallel for map(from: px[0:n]) map(tofrom: py[0:n])
  for (int i = 0; i < n; i++)
    py[i] += a * px[i];
}

int main() {
  std::vector<float> x(2048, 1.0f), y(2048, 2.0f);
  saxpy(y, x, 3.0f);
  std::printf("y[0] = %g\n", y[0]);
  return 0;
}
