// omp_target_free twice through a helper: both frees are made at the
// helper's line, so each one is named with its caller's line too.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_free(d) at find_double_free_helper.c:16 (called from find_double_free_helper.c:26): 0x0000550000
// EXPECT-STDERR: (800 bytes of device 0 memory, allocated by omp_target_alloc at find_double_free_helper.c:22) was already freed at find_double_free_helper.c:16 (called from find_double_free_helper.c:25): nothing done
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

static int released;

// Not inlined, and not a tail call (the count after it), as a helper in
// another file would be.
__attribute__((noinline)) static void release(double *d, int dev) {
  omp_target_free(d, dev);
  released++;
}

int main(void) {
  int dev = omp_get_default_device();
  double *d = omp_target_alloc(800, dev);
  if (!d)
    return 1;
  release(d, dev);
  release(d, dev);
  printf("released %d\n", released);
  return 0;
}
