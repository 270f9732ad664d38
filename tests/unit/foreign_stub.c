/* A stand-in "offload runtime" for tests/unit/test_foreign_runtime.c: the
 * test loads copies of this library under LLVM's runtime names
 * (libomptarget.so.22.1, ...) and asks each copy whether it is alone,
 * through foreign_runtime.c compiled into it. */
#include "config.h"

#include "foreign_runtime.h"

__attribute__((visibility("default"))) int stub_check_single(void) {
  return rt_check_single_runtime();
}
