// exit data map(release:) where map(from:) was needed, for a struct member's
// section entered with the struct: the kernel's construct maps only the
// struct (clang 14: f alone), and reaches f.h's data through the attached pointer.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel 
// EXPECT-STDERR: _main_l21 (find_release_struct_member.c:21) changed 317 of 1024 bytes of f.h[0:f.n] (declared at find_release_struct_member.c:16), mapped with map(to) at find_release_struct_member.c:20, and the data region exit at find_release_struct_member.c:23 removed the mapping with map(release) without copying them back; map(from:) keeps them (device 0 block 
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
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
#pragma omp target exit data map(release: f.h[0:f.n], f)
  printf("h[3] = %g\n", f.h[3]);
  free(f.h);
  return 0;
}
