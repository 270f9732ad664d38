// An unmapped pointer: P points to host memory no map clause covers; the
// kernel dereferences it.  OpenMP 5.1 passes it unchanged (a host address
// on a device); in check mode the kernel gets an alias and the dereference
// is reported with the variable and the construct.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: check: kernel __omp_offloading_
// EXPECT-STDERR: _main_l23 at find_unmapped_pointer.c:23 dereferenced host pointer
// EXPECT-STDERR: (p, an unmapped pointer of the target region at find_unmapped_pointer.c:23) + 24 (read at
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

/* Static: its address is the same every run (see
 * find_member_not_attached.c). */
static double host_data[100];

int main(void) {
  double *p = host_data, x = 0;
  for (int i = 0; i < 100; i++)
    p[i] = i;
  /* p[0:100] should be mapped */
#pragma omp target map(from: x)
  x = p[3];
  printf("x = %g\n", x);
  return 0;
}
