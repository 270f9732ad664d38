// A table of pointers mapped alloc and never filled: the kernel follows
// tab[0], which holds the poison of device memory nothing wrote.  As an
// address the poison is not canonical, so the fault carries no address (0);
// the message gives the pointer's value from the faulting thread's
// registers and says where such a value comes from, instead of "invalid
// read at 0x0".
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l21 at find_alloc_pointer_table.c:21: invalid access through the address 0xfff5a5a5fff5a5a5, which is the poison of device memory nothing wrote: the kernel followed a pointer read from uninitialized device memory
// EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

int main(void) {
  double *tab[4];
  double a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (int i = 0; i < 4; i++)
    tab[i] = a + 2 * i;
  double s = 0;
  /* tab's device copy is never written: map(to:) would send it */
#pragma omp target map(alloc: tab) map(to: a) map(tofrom: s)
  for (int i = 0; i < 4; i++)
    s += tab[i][0];
  printf("%g\n", s);
  return 0;
}
