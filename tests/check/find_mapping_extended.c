// A mapping extended while it is present: a target data region maps the
// first half of A, and a target region inside it maps all of A.  OpenMP
// does not let a present mapping grow: the runtime refuses the map
// ("explicit extension not allowed", with host addresses), the region
// fails, and with the device there the run aborts (status 134), as under
// LLVM.  Check mode names both sections, their lines and the overrun
// (tests/fortran/check_extend_below.f90: a section that starts below).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 134
// EXPECT-STDERR: ompemu: check: mapping extended: map(tofrom) of a[0:2 * n] (declared at find_mapping_extended.c:21) at the target region at find_mapping_extended.c:26 (1600 bytes) runs 800 bytes past the end of a[0:n] (declared at find_mapping_extended.c:21), mapped at find_mapping_extended.c:24 (800 bytes), which is present and cannot grow: the runtime refuses the map and the construct fails
// EXPECT-STDERR: explicit extension not allowed
// EXPECT-STDERR: ompemu: check: 1 finding
#include <stdio.h>

#define N 100

int main(int argc, char **argv) {
  (void)argv;
  /* N from the command line's count, so the section is not a constant. */
  int n = N + argc - 1;
  double a[2 * N];
  for (int i = 0; i < 2 * n; i++)
    a[i] = i;
#pragma omp target data map(to: a[0:n])
  {
#pragma omp target map(tofrom: a[0:2 * n])
    for (int i = 0; i < 2 * n; i++)
      a[i] += 1;
  }
  printf("a[%d] = %g\n", n, a[n]);
  return 0;
}
