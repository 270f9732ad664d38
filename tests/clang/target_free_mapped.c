// omp_target_free of a mapped variable's device copy (its address from
// use_device_ptr) is refused with an error naming the variable, in every
// mode, and frees nothing: the exit data that follows copies the
// variable back and removes its mapping as usual.  LLVM's runtime frees
// the block, and the exit data then works on freed device memory.
// CFLAGS: -g
// EXPECT-STDERR: ompemu: error: omp_target_free(d) at target_free_mapped.c:
// EXPECT-STDERR: is the device copy of the mapped variable p[0:100] (declared at target_free_mapped.c:
// EXPECT-STDERR: ), not memory from omp_target_alloc: nothing done
// CHECK-ERRORS: the omp_target_free is refused with an error on purpose
// SKIP-MODE-llvmrt: LLVM 14's runtime frees the mapped block
// SKIP-MODE-llvm: LLVM 14's runtime frees the mapped block
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device();
  double a[100];
  double *p = a;
  for (int i = 0; i < 100; i++)
    a[i] = i;
#pragma omp target enter data map(to: p[0:100])
  double *d = NULL;
#pragma omp target data use_device_ptr(p)
  d = p;
  omp_target_free(d, dev);
  CHECK(omp_target_is_present(a, dev), "the mapping went with the free");
#pragma omp target
  a[5] = 50; /* the device copy is still usable */
#pragma omp target exit data map(from: p[0:100])
  CHECK(a[5] == 50 && a[6] == 6, "a[5]=%g a[6]=%g", a[5], a[6]);
  CHECK(!omp_target_is_present(a, dev), "still mapped after exit data");
  return tc_done();
}
