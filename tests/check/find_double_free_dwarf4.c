// omp_target_free twice in a program built with -gdwarf-4: the older line
// table (file names relative to the compilation directory of .debug_info)
// names the same lines and the variable.
// CFLAGS: -gdwarf-4
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_free(p) at find_double_free_dwarf4.c:18: 0x0000550000
// EXPECT-STDERR: (80 bytes of device 0 memory, allocated by omp_target_alloc at find_double_free_dwarf4.c:15) was already freed at find_double_free_dwarf4.c:17: nothing done
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
