// A stale declare-target global in a C++ namespace: configure() changes
// cfg::scale on the host and no target update follows.  The finding names
// the variable as the source does (cfg::scale, demangled), not by its
// symbol (_ZN3cfg5scaleE), in the words and in the target update it
// suggests.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: stale declare target variable cfg::scale: its host copy changed since the device last got it
// EXPECT-STDERR: _main_l25 at find_stale_global_cxx.cpp:25 starts with the old device copy; `target update to(cfg::scale)` sends it
// RUN-TWICE-SAME-STDERR
#include <cstdio>

namespace cfg {
#pragma omp declare target
double scale = 1.0;
#pragma omp end declare target
void configure(double s) { scale = s; }
} // namespace cfg

int main() {
  double v[128];
  for (int i = 0; i < 128; i++)
    v[i] = i;
  cfg::configure(4.0);
#pragma omp target teams distribute parallel for map(tofrom: v)
  for (int i = 0; i < 128; i++)
    v[i] *= cfg::scale;
  std::printf("%g\n", v[3]);
  return 0;
}
