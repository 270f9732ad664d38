// to where tofrom was needed in a target data with use_device_ptr: the
// kernel writes a through its device address (is_device_ptr), and the end
// of the data region drops the results.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel 
// EXPECT-STDERR: _main_l19 (find_use_device_ptr_to.c:19) changed 710 of 1600 bytes of a[0:n] (declared at find_use_device_ptr_to.c:15), mapped with map(to) at find_use_device_ptr_to.c:17, and the data region exit at find_use_device_ptr_to.c:17 removed the mapping without copying them back; map(tofrom:) or map(from:) keeps them (device 0 block 
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 400;
  int *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++) a[i] = i;
#pragma omp target data map(to: a[0:n]) use_device_ptr(a)
  {
#pragma omp target is_device_ptr(a)
    for (int i = 0; i < n; i++)
      a[i] *= 3;
  }
  printf("a[7] = %d\n", a[7]);
  free(a);
  return 0;
}
