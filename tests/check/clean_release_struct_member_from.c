// The correct form of find_release_struct_member.c: the member's section
// goes back with map(from:), the struct is released: no finding.
// OMPEMU-RUN: --check
// EXPECT-STDERR: ompemu: check: no findings
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

struct field { int n; double *h; };

int main(void) {
  struct field f;
  f.n = 128;
  f.h = malloc(f.n * sizeof *f.h);
  for (int i = 0; i < f.n; i++) f.h[i] = 0;
#pragma omp target enter data map(to: f, f.h[0:f.n])
#pragma omp target
  for (int i = 0; i < f.n; i++) f.h[i] = i;
#pragma omp target exit data map(from: f.h[0:f.n]) map(release: f)
  printf("h[3] = %g\n", f.h[3]);
  free(f.h);
  return 0;
}
