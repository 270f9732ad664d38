// omp_target_free twice in a program built without -g: no line table, so
// the calls are named by object and offset, as addr2line -e takes them.
// CFLAGS: -g0
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_free at find_double_free_nodebug+0x
// EXPECT-STDERR: (80 bytes of device 0 memory, allocated by omp_target_alloc at find_double_free_nodebug+0x
// EXPECT-STDERR: ) was already freed at find_double_free_nodebug+0x
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  int *p = omp_target_alloc(20 * sizeof(int), dev);
  printf("allocated\n");
  omp_target_free(p, dev);
  omp_target_free(p, dev);
  return 0;
}
