// `target update` of a strided section of a struct's pointer member, the
// struct not mapped: one finding, for the section.  clang also passes the
// struct itself with neither `to` nor `from` (it moves nothing), which is
// no update of unmapped data.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: target update to of v.data[0:v.len:2] (declared at find_update_unmapped_member.c:20) at find_update_unmapped_member.c:25: it is not mapped on device 0, so nothing was copied
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
// SKIP-CLANG-22: clang 22 passes this strided section through a pointer without its dimension descriptors (LLVM 22's runtime crashes; ompemu refuses it with an error)
#include <stdio.h>
#include <stdlib.h>

struct vec {
  size_t len;
  double *data;
};

int main(void) {
  struct vec v;
  v.len = 64;
  v.data = calloc(v.len, sizeof(double));
  for (size_t i = 0; i < v.len; i++)
    v.data[i] = (double)i;
#pragma omp target update to(v.data[0:v.len:2])
  printf("v.data[2] = %g\n", v.data[2]);
  free(v.data);
  return 0;
}
