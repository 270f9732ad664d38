// omp_target_free twice in a program whose source cannot be found at run
// time (its line table names /nonexistent/...: as if the sources had
// moved after the build): the lines are named, the variable not.
// CFLAGS: -fdebug-prefix-map=/=/nonexistent/
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_free at find_double_free_moved.c:18: 0x0000550000
// EXPECT-STDERR: (80 bytes of device 0 memory, allocated by omp_target_alloc at find_double_free_moved.c:15) was already freed at find_double_free_moved.c:17: nothing done
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
