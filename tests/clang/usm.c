// requires unified_shared_memory: host memory is used directly on the
// device (no copies), pointers keep their host values; map(close) still
// makes a device copy.
#include "check.h"
#include <stdint.h>

#pragma omp requires unified_shared_memory

#define N 256

int main(void) {
  int *p = malloc(N * sizeof *p);
  for (int i = 0; i < N; i++) p[i] = i;
  uintptr_t seen = 0;
#pragma omp target map(from: seen)
  {
    for (int i = 0; i < N; i++) p[i] += 1;
    seen = (uintptr_t)p;
  }
  CHECK(seen == (uintptr_t)p, "device saw %#lx for host %p", (unsigned long)seen, (void *)p);
  for (int i = 0; i < N; i++) CHECK(p[i] == i + 1, "p[%d] = %d", i, p[i]);
  int arr[8] = {0};
  uintptr_t addr = 0;
#pragma omp target map(tofrom: arr) map(from: addr)
  {
    arr[3] = 3;
    addr = (uintptr_t)arr;
  }
  CHECK(addr == (uintptr_t)arr && arr[3] == 3, "mapped array under USM: %#lx arr[3]=%d", (unsigned long)addr, arr[3]);
  int c[4] = {1, 2, 3, 4};
  uintptr_t caddr = 0;
#pragma omp target map(close, tofrom: c) map(from: caddr)
  {
    caddr = (uintptr_t)c;
    c[0] = 10;
  }
  CHECK(caddr != (uintptr_t)c, "map(close) under USM used the host copy");
  CHECK(c[0] == 10 && c[3] == 4, "close copy-back c[0] = %d", c[0]);
  free(p);
  return tc_done();
}
