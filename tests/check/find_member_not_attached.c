// A struct member not attached: S is mapped, but not S.DATA[0:N], so the
// device copy of S holds the host pointer.  In check mode the runtime puts
// an alias there, and the kernel's first dereference is reported with the
// variable, the member's offset and the construct.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: check: kernel __omp_offloading_
// EXPECT-STDERR: _main_l29 at find_member_not_attached.c:29 dereferenced host pointer
// EXPECT-STDERR: (the pointer s.data at offset 8 of s (map tofrom), copied at find_member_not_attached.c:29) + 0 (read at
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

struct vec {
  int n;
  double *data;
};

/* Static, not malloc'ed: the message shows the host address, and where
 * malloc puts a block in the main heap varies between runs in a few in a
 * hundred (other threads at start-up), static data does not. */
static double data[100];

int main(void) {
  struct vec s = {100, data};
  for (int i = 0; i < s.n; i++)
    s.data[i] = i;
  double sum = 0;
#pragma omp target map(tofrom: s, sum)
  for (int i = 0; i < s.n; i++)
    sum += s.data[i];
  printf("sum = %g\n", sum);
  return 0;
}
