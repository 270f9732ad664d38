/* What a kernel sees does not depend on the thread that runs it
 * (src/plugins/emu/exec_inline.c): synchronous launches from a host
 * thread with a new root's ICVs, after omp_set_num_threads on the host,
 * and from inside a host parallel region, all see the device's state. */
#include <omp.h>
#include <stdio.h>

static int probe(int out[4]) {
  int nthr = -1, level = -1, initial = -1, devnum = -1;
#pragma omp target map(from: nthr, level, initial, devnum)
#pragma omp parallel
  {
#pragma omp master
    {
      nthr = omp_get_num_threads();
      level = omp_get_level();
      initial = omp_is_initial_device();
      devnum = omp_get_device_num();
    }
  }
  out[0] = nthr, out[1] = level, out[2] = initial, out[3] = devnum;
  return 0;
}

int main(void) {
  int ref[4], v[4], wrong = 0;
  probe(ref);
  if (ref[1] != 1 || ref[2] != 0 || ref[3] != 0)
    wrong++, printf("first: level %d initial %d device %d\n", ref[1], ref[2],
                    ref[3]);
  omp_set_num_threads(ref[0] > 2 ? ref[0] - 1 : 3);
  probe(v);
  for (int i = 0; i < 4; i++)
    if (v[i] != ref[i])
      wrong++, printf("after omp_set_num_threads: [%d] %d, not %d\n", i, v[i],
                      ref[i]);
  omp_set_num_threads(ref[0]);
#pragma omp parallel num_threads(2)
  {
    int w[4];
    probe(w);
#pragma omp critical
    for (int i = 0; i < 4; i++)
      if (w[i] != ref[i])
        wrong++, printf("in a parallel region: [%d] %d, not %d\n", i, w[i],
                        ref[i]);
  }
  printf("launch_here: %d wrong\n", wrong);
  return wrong != 0;
}
