// A host pointer given to a kernel with firstprivate(p): the kernel gets
// the host address itself and writes through it.  Found with every
// compiler (clang 14 to 19 call it an unmapped pointer); clang 22 passes
// such a pointer as a literal of size 0, which is a whole pointer, not a
// narrower value.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l17 at find_firstprivate_host_pointer.c:17 dereferenced host pointer 0x
// EXPECT-STDERR: the target region at find_firstprivate_host_pointer.c:17) + 8 (write at
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

static int data[10]; /* static: the same host address every run */

int main(void) {
  int *p = data;
#pragma omp target firstprivate(p)
  p[2] = 5;
  printf("%d\n", p[2]);
  return 0;
}
