// Integers whose 8 bytes read as an address of the device's code range
// (0x554000001000, where the first image's code starts), sent by the first
// construct, before any kernel has run.  They are data, and the kernel must
// get them unchanged: the checker anchors each loaded image's mappings as
// device memory when it reads the address space, not when a kernel first
// runs there (it used to take them for a host pointer and put an alias in
// the device copy: a wrong sum and no finding).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: sum 25920
#include <stdio.h>

int main(void) {
  int pair[2] = {4096, 21824}; /* one 64-bit word: 0x0000554000001000 */
  int sum = 0;
#pragma omp target map(to: pair) map(tofrom: sum)
  sum = pair[0] + pair[1];
  printf("sum %d\n", sum);
  return sum != 25920;
}
