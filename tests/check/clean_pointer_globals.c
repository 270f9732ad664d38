// Declare-target globals that hold addresses: a function pointer, a
// pointer to another global and a table of both.  The device image's copy
// holds device addresses (its relocations) and the host's copy host
// addresses, so their bytes differ from the start although neither side
// changed them: not stale, no finding.  A later change on the host with no
// `target update` is still reported (find_stale_global.c).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: 42 3 7
#include <stdio.h>

#pragma omp declare target
int twice(int x) { return 2 * x; }
int plus4(int x) { return x + 4; }
int (*op)(int) = twice;
int table[4] = {1, 2, 3, 4};
int *tp = &table[2];
struct ops {
  int (*f)(int);
  int *arg;
} ops[2] = {{twice, &table[0]}, {plus4, &table[2]}};
#pragma omp end declare target

int main(void) {
  int r = 0, s = 0, u = 0;
#pragma omp target map(from: r, s, u)
  {
    r = op(21);
    s = *tp;
    u = ops[1].f(*ops[1].arg);
  }
  printf("%d %d %d\n", r, s, u);
  return !(r == 42 && s == 3 && u == 7);
}
