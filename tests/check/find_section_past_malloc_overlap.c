// A map section longer than its host block that runs into another mapped
// variable: A holds N ints, the map asks for N*N, and B, allocated after
// A and mapped first (enter data), lies inside that range.  The runtime
// refuses A's mapping (an existing mapping cannot be extended), and check
// mode names the variable and the line of the real bug: the section
// longer than what the program allocated.  The region then fails, and with
// offloading mandatory the run aborts (status 134), as under LLVM.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 134
// EXPECT-STDERR: ompemu: check: map section past the end of host memory: map(to) of a[0:n * n] (declared at find_section_past_malloc_overlap.c:18) at the target region at find_section_past_malloc_overlap.c:25 is 4096 bytes, but the heap block it starts at (from malloc) holds at most 136: 3960 bytes past the end of what the program allocated, and it runs into data already mapped, so the runtime refused to map it
// EXPECT-STDERR: explicit extension not allowed
// SKIP-SANITIZED: with ASan's allocator the heap rule stays silent
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 32;
  int *a = malloc(n * sizeof *a);
  int *b = malloc(n * sizeof *b);
  long sum = 0;
  for (int i = 0; i < n; i++)
    a[i] = b[i] = 1;
#pragma omp target enter data map(to: b[0:n])
  /* the section should be a[0:n] */
#pragma omp target map(to: a[0:n * n]) map(tofrom: sum)
  for (int i = 0; i < n; i++)
    sum += a[i];
#pragma omp target exit data map(delete: b[0:n])
  printf("sum = %ld\n", sum);
  free(a);
  free(b);
  return 0;
}
