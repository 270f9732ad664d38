// An enter data without the exit data that would remove it: the mapping
// of KEEP lives until the program ends.  The data-movement report (here
// through --check) lists it with the construct that mapped it; it is not
// a finding (exit status 0).  TMP, entered and exited, is not listed, nor
// the pointers of the global P's PTR_AND_OBJ entry (LLVM 14's exit data
// leaves those mapped itself).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: mappings still present at exit (no exit data removed them): 2, 1200 bytes
// EXPECT-STDERR:          800 bytes  keep[0:n] (declared at report_left_mapped.c:22), 1 time at report_left_mapped.c:27
// EXPECT-STDERR:          400 bytes  p[0:n] (declared at report_left_mapped.c:18), 1 time at report_left_mapped.c:28
// EXPECT-STDERR: ompemu: check: no findings
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

/* A global pointer: clang 14 maps it with PTR_AND_OBJ entries. */
int *p;

int main(void) {
  int n = 100;
  double *keep = malloc(n * sizeof *keep), *tmp = malloc(n * sizeof *tmp);
  p = malloc(n * sizeof *p);
  for (int i = 0; i < n; i++)
    keep[i] = tmp[i] = p[i] = i;
#pragma omp target enter data map(to: tmp[0:n])
#pragma omp target enter data map(to: keep[0:n])
#pragma omp target enter data map(to: p[0:n])
#pragma omp target map(tofrom: tmp[0:n])
  for (int i = 0; i < n; i++)
    tmp[i] += keep[i] + p[i];
#pragma omp target exit data map(from: tmp[0:n])
  printf("tmp[5] = %g\n", tmp[5]);
  return 0;
}
