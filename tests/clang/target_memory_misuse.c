// Misuse of the device memory routines gets a message in the API's words
// in every mode, and the call does nothing: omp_target_free twice,
// omp_target_memcpy with the device numbers swapped, omp_target_free of
// another device's memory (the host's), omp_target_memcpy from freed
// memory.  The program goes on; what it gets back is checked.
// Built without -g: the calls are named by program and offset.
// EXPECT-STDERR: ompemu: error: omp_target_free at target_memory_misuse
// EXPECT-STDERR: (400 bytes of device 0 memory, allocated by omp_target_alloc at target_memory_misuse
// EXPECT-STDERR: ) was already freed at target_memory_misuse
// EXPECT-STDERR: ompemu: error: omp_target_memcpy at target_memory_misuse
// EXPECT-STDERR: ) but dst_device_num is the host: nothing copied
// EXPECT-STDERR: ) but device_num is the host: nothing done
// EXPECT-STDERR: is device 0 memory that omp_target_free freed at target_memory_misuse
// CHECK-ERRORS: every call above is refused with an error on purpose
// SKIP-MODE-llvmrt: LLVM 14's runtime has no such messages
// SKIP-MODE-llvm: LLVM 14's runtime has no such messages
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int h[100];
  for (int i = 0; i < 100; i++)
    h[i] = i;
  int *p = omp_target_alloc(sizeof h, dev);
  int *q = omp_target_alloc(sizeof h, dev);
  CHECK(p && q, "omp_target_alloc failed");
  CHECK(omp_target_memcpy(p, h, sizeof h, 0, 0, dev, host) == 0 &&
            omp_target_memcpy(q, h, sizeof h, 0, 0, dev, host) == 0,
        "a correct omp_target_memcpy failed");
  /* Swapped device numbers: refused, nothing written to P or H. */
  CHECK(omp_target_memcpy(p, h, sizeof h, 0, 0, host, dev) != 0,
        "a swapped omp_target_memcpy succeeded");
  omp_target_free(q, host); /* the wrong device: nothing done */
  int back[100] = {0};
  CHECK(omp_target_memcpy(back, q, sizeof back, 0, 0, host, dev) == 0 &&
            back[99] == 99,
        "q was freed by an omp_target_free naming the host");
  omp_target_free(q, dev);
  omp_target_free(p, dev);
  omp_target_free(p, dev); /* twice: refused */
  CHECK(omp_target_memcpy(back, p, sizeof back, 0, 0, host, dev) != 0,
        "omp_target_memcpy from freed memory succeeded");
  return tc_done();
}
