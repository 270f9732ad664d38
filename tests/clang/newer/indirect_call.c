// declare target indirect (OpenMP 5.1): clang 19 and 22 generate the
// indirect-function entries themselves (flags 0x08: host entry at the host
// function, size 8; device entry a pointer variable holding the device
// function).  Function pointers made on the host, mapped in a table or
// passed firstprivate, are called on the device.
// CFLAGS: -fopenmp-version=51
// MIN-CLANG: 19
#include "check.h"

int add1(int x) { return x + 1; }
int twice(int x) { return 2 * x; }
int square(int x) { return x * x; }
#pragma omp declare target indirect to(add1, twice, square)

typedef int (*fn_t)(int);

int main(void) {
  fn_t table[3] = {add1, twice, square};
  int out[3] = {0, 0, 0};
#pragma omp target map(to: table) map(from: out)
  for (int i = 0; i < 3; i++) out[i] = table[i](i + 3);
  CHECK(out[0] == 4 && out[1] == 8 && out[2] == 25, "out = %d %d %d", out[0], out[1], out[2]);

  fn_t fp = square;
  int r = 0;
#pragma omp target map(from: r) firstprivate(fp)
  r = fp(7);
  CHECK(r == 49, "square(7) through a firstprivate pointer = %d", r);

  /* Chosen on the device, from a pointer the host picked per team. */
  int sums[4] = {0, 0, 0, 0};
#pragma omp target teams distribute num_teams(4) map(to: table) map(tofrom: sums)
  for (int t = 0; t < 4; t++) sums[t] = table[t % 3](10 + t);
  CHECK(sums[0] == 11 && sums[1] == 22 && sums[2] == 144 && sums[3] == 14,
        "sums = %d %d %d %d", sums[0], sums[1], sums[2], sums[3]);
  return tc_done();
}
