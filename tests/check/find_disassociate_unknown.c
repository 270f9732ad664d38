// omp_target_disassociate_ptr of a pointer never associated: LLVM's
// message, followed by the call's name and line; check mode fails the run.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: Libomptarget error: Association not found (omp_target_disassociate_ptr at find_disassociate_unknown.c:15)
// EXPECT-STDERR: ompemu: check: no findings, but 1 error reported; exit status 99
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  double x = 1;
  /* nothing was associated with &x */
  int rc =
      omp_target_disassociate_ptr(&x, dev);
  printf("omp_target_disassociate_ptr returned %d\n", rc);
  return 0;
}
