/* A kernel that changes libomp state (omp_set_num_threads in device code)
 * changes the device thread's, never the launching host thread's
 * (src/plugins/emu/exec_inline.c: such images stay on the workers). */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int before = omp_get_max_threads(), wrong = 0;
#pragma omp target
  omp_set_num_threads(before + 3);
  int after = omp_get_max_threads();
  if (after != before)
    wrong++, printf("host max threads %d after the kernel, %d before\n", after,
                    before);
  printf("launch_here_set: %d wrong\n", wrong);
  return wrong != 0;
}
