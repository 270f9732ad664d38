// to where tofrom was needed for a struct member's section, in a function
// given a pointer to the struct: map(to: g[0:1], g->val[0:g->n]).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel 
// EXPECT-STDERR: _relax_l15 (find_struct_section_to.c:15) changed 513 of 4096 bytes of g->val[0:g->n] (declared at find_struct_section_to.c:14), mapped with map(to) at find_struct_section_to.c:15, and the target region at find_struct_section_to.c:15 removed the mapping without copying them back; map(tofrom:) or map(from:) keeps them (device 0 block 
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

struct grid { int n; double *val; };

static void relax(struct grid *g) {
#pragma omp target map(to: g[0:1], g->val[0:g->n])
  for (int i = 0; i < g->n; i++)
    g->val[i] = 0.5 * g->val[i];
}

int main(void) {
  struct grid g;
  g.n = 512;
  g.val = malloc(g.n * sizeof *g.val);
  for (int i = 0; i < g.n; i++) g.val[i] = i;
  relax(&g);
  printf("val[3] = %g\n", g.val[3]);
  free(g.val);
  return 0;
}
