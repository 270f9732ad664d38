// Four teams read a block freed with omp_target_free, each at its own
// offset; team 0 reads last (it works first).  In check mode the fault
// reported is team 0's: the same message every run.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: _main_l20 at fault_teams_freed.c:20: invalid read of device memory at 0x0000550000001e00, inside the freed data block [0x0000550000001e00, 0x0000550000002000) of 512 bytes, at offset 0
// EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
// RUN-SAME-STDERR-TIMES: 9
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  double *p = omp_target_alloc(64 * sizeof(double), dev);
  omp_target_free(p, dev);
  double x[4] = {0};
  volatile double busy = 0;
  printf("before the kernel\n");
  fflush(stdout);
#pragma omp target teams num_teams(4) is_device_ptr(p) map(tofrom: x, busy)
  {
    int t = omp_get_team_num();
    if (t == 0)
      for (int k = 0; k < 5000000; k++)
        busy += k;
    x[t] = p[16 * t]; /* team t: offset 128 * t */
  }
  printf("read %g from freed device memory: not caught\n", x[0]);
  return 0;
}
