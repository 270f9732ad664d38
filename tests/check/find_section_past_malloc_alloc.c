// A map(alloc:) section longer than its host block: C holds N ints, enter
// data allocates N*N of device memory for it; a copy back of the section
// would write past the end of C's block (here the program only updates
// the first N).  The finding comes at the enter data, which has map type 0
// (alloc, no other flag): it must not be taken for a declare-target global
// entered at load.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: map section past the end of host memory: map(alloc) of c[0:n * n] (declared at find_section_past_malloc_alloc.c:16) at the data region entry at find_section_past_malloc_alloc.c:20 is 4096 bytes, but the heap block it starts at (from malloc) holds at most 136: 3960 bytes past the end of what the program allocated, and a copy back (map(from:), target update from) would write them
// SKIP-SANITIZED: with ASan's allocator the heap rule stays silent, and ASan itself stops the runtime's write past the block
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 32;
  int *c = malloc(n * sizeof *c);
  for (int i = 0; i < n; i++)
    c[i] = 0;
  /* the sections should be c[0:n] */
#pragma omp target enter data map(alloc: c[0:n * n])
#pragma omp target
  for (int i = 0; i < n; i++)
    c[i] = i;
#pragma omp target update from(c[0:n])
#pragma omp target exit data map(delete: c[0:n * n])
  printf("c[3] = %d\n", c[3]);
  free(c);
  return 0;
}
