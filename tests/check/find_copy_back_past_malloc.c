// A map(from:) section longer than its host block: C holds N ints, the
// region maps N*N back.  Check mode names the section at the map, and at
// the end of the region refuses the copy back, which would overwrite
// other heap data (the program would go on with a corrupt heap: a crash
// or a hang later, somewhere else).  The refused copy fails the region,
// and the run aborts as under LLVM (status 134), with nothing overwritten.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 134
// EXPECT-STDERR: ompemu: check: map section past the end of host memory: map(from) of c[0:n * n] (declared at find_copy_back_past_malloc.c:19) at the target region at find_copy_back_past_malloc.c:22 is 4096 bytes, but the heap block it starts at (from malloc) holds at most 136: 3960 bytes past the end of what the program allocated, and the runtime writes them back
// EXPECT-STDERR: ompemu: check: copy to the host past the end of host memory: c[0:n * n] (declared at find_copy_back_past_malloc.c:19) at the target region at find_copy_back_past_malloc.c:22 would write 4096 bytes into a heap block (from malloc) of at most 136, overwriting 3960 bytes of other heap data; ompemu did not make the copy
// EXPECT-STDERR: ompemu: check: 2 findings
// RUN-TWICE-SAME-STDERR
// SKIP-SANITIZED: with ASan's allocator the heap rule stays silent, and ASan itself stops the runtime's write past the block
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 32;
  int *c = malloc(n * sizeof *c);
  int *d = malloc(n * sizeof *d); /* the heap data the copy would overwrite */
  /* the section should be c[0:n] */
#pragma omp target map(from: c[0:n * n])
  for (int i = 0; i < n * n; i++)
    c[i] = i;
  printf("c[3] = %d\n", c[3]);
  free(c);
  free(d);
  return 0;
}
