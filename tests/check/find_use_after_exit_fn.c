// Use after exit data, the device pointer taken in one function (use_device_ptr)
// and used in another (is_device_ptr)
// after the mapping went, with no live block left on the device: the freed
// block's address is device memory, not a host pointer.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: use after exit data: kernel 
// EXPECT-STDERR: _clear_l27 at find_use_after_exit_fn.c:27 gets d = 
// EXPECT-STDERR: , which points into the device copy of a[0:n] (declared at find_use_after_exit_fn.c:33), removed by the construct at find_use_after_exit_fn.c:37 (device 0 block 
// EXPECT-STDERR: emu: error: device 0: kernel 
// EXPECT-STDERR: _clear_l27 at find_use_after_exit_fn.c:27: invalid write of device memory at 
// EXPECT-STDERR: , inside the freed data block [
// EXPECT-STDERR: ) of 800 bytes, at offset 0 (the device copy of variable a[0:n] (declared at find_use_after_exit_fn.c:33), removed at find_use_after_exit_fn.c:37)
// EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

static double *device_copy(double *a) {
  double *d = NULL;
#pragma omp target data use_device_ptr(a)
  d = a;
  return d;
}

static void clear(double *d, int n) {
#pragma omp target is_device_ptr(d)
  for (int i = 0; i < n; i++) d[i] = i; /* no memset (ASan's) */
}

int main(void) {
  int n = 100;
  double *a = malloc(n * sizeof *a);
  for (int i = 0; i < n; i++) a[i] = i;
#pragma omp target enter data map(to: a[0:n])
  double *d = device_copy(a);
#pragma omp target exit data map(delete: a[0:n])
  clear(d, n);
  printf("a[1] = %g\n", a[1]);
  free(a);
  return 0;
}
