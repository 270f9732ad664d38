// is_device_ptr given a host pointer: H is malloc'ed host memory.  In check
// mode the kernel gets an alias instead, and its dereference is reported
// with the variable and the construct.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: check: kernel __omp_offloading_
// EXPECT-STDERR: _main_l23 at find_is_device_ptr_host.c:23 dereferenced host pointer
// EXPECT-STDERR: (h, a host address passed to the target region at find_is_device_ptr_host.c:23) + 24 (read at
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

/* Static: its address is the same every run (see
 * find_member_not_attached.c). */
static double host_data[100];

int main(void) {
  int n = 100;
  double *h = host_data, x = 0;
  for (int i = 0; i < n; i++)
    h[i] = i;
  /* Should be omp_target_alloc'ed device memory. */
#pragma omp target is_device_ptr(h) map(from: x)
  x = h[3];
  printf("x = %g\n", x);
  return 0;
}
