/* What a user writes: a host function pointer called inside a target
 * region, made legal by `declare target indirect` (OpenMP 5.1).
 *
 * clang 14 parses this with -fopenmp-version=51 but generates nothing for
 * `indirect` (docs/abi-clang14.md section 12): the pointer reaches the device as a
 * host address and the call crashes.  lowered/ is this same program lowered
 * by hand the way docs/indirect-functions.md says a front end
 * would, and that one runs on ompemu. */
#include <stdio.h>

#pragma omp begin declare target indirect
int square(int x) { return x * x; }
int cube(int x) { return x * x * x; }
#pragma omp end declare target

int main(void) {
  int (*ops[2])(int) = {square, cube};
  int out[2] = {0, 0};
#pragma omp target map(to: ops) map(from: out)
  for (int i = 0; i < 2; i++)
    out[i] = ops[i](3); /* an indirect call on the device */
  printf("square(3) = %d, cube(3) = %d\n", out[0], out[1]);
  return !(out[0] == 9 && out[1] == 27);
}
