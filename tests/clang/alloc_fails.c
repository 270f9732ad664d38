// A device allocation that fails reaches the program: omp_target_alloc
// returns NULL (OMPEMU_INJECT=alloc:2 makes the emu plugin's second
// allocation fail as an exhausted device would), with one message, and
// the next allocation works again.
// RUN-ENV: OMPEMU_INJECT=alloc:2
// EXPECT-STDERR: emu: error: device 0: allocation of 4096 bytes (default) failed: injected fault (OMPEMU_INJECT=alloc:2)
// SKIP-MODE-x86: the fault is injected by ompemu's emu plugin; LLVM's x86_64 plugin allocates here
// SKIP-MODE-llvm: the fault is injected by ompemu's emu plugin
// CHECK-ERRORS: the allocation failure is injected (OMPEMU_INJECT)
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device();
  void *p1 = omp_target_alloc(1024, dev);
  void *p2 = omp_target_alloc(4096, dev);
  void *p3 = omp_target_alloc(4096, dev);
  CHECK(p1 != NULL, "the first allocation failed");
  CHECK(p2 == NULL, "the second allocation gave %p, expected NULL", p2);
  CHECK(p3 != NULL, "the third allocation failed");
  omp_target_free(p1, dev);
  omp_target_free(p3, dev);
  return tc_done();
}
