// defaultmap(to) maps every array and struct the region uses `to`: the
// program chose, for the whole category, that the device's changes stay
// on the device.  A kernel writing such an array throws nothing away by
// mistake, so check mode reports nothing (the OpenMP V&V suite's
// defaultmap tests check exactly that the host copy is unchanged).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: a[0] = 0, s.v[1] = 0
#include <stdio.h>

enum { N = 512 };

struct s {
  int k;
  int v[N];
};

int main(void) {
  int a[N];
  struct s s = {0};
  for (int i = 0; i < N; i++)
    a[i] = 0;
#pragma omp target defaultmap(to: aggregate)
  {
    a[0] = 5;
    s.v[1] = 7;
  }
  printf("a[0] = %d, s.v[1] = %d\n", a[0], s.v[1]);
  return 0;
}
