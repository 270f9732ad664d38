// target thread_limit(n) when the kernel runs on a device worker, not on
// the launching thread: clang 19 and 22 set the limit with
// __kmpc_set_thread_limit in the target task, and the worker must take it
// (omp_get_thread_limit, the size of a parallel inside) for that kernel
// only.  A host ICV changed by the program (omp_set_schedule) and a host
// parallel region each keep the kernel off the launching thread.
// MIN-CLANG: 19
// NEEDS-LIBOMP: 19
#include "check.h"
#include <omp.h>

int main(void) {
  int tl = -1, np = -1;
  omp_set_schedule(omp_sched_dynamic, 3);
#pragma omp target thread_limit(2) map(tofrom: tl, np)
  {
    tl = omp_get_thread_limit();
#pragma omp parallel num_threads(8)
    if (omp_get_thread_num() == 0)
      np = omp_get_num_threads();
  }
  CHECK(tl == 2 && np >= 1 && np <= 2, "after omp_set_schedule: "
        "omp_get_thread_limit()=%d, threads in parallel=%d", tl, np);

  int bad = 0;
#pragma omp parallel num_threads(2) reduction(+: bad)
  {
    int t = -1, n = -1;
#pragma omp target thread_limit(2) map(tofrom: t, n)
    {
      t = omp_get_thread_limit();
#pragma omp parallel num_threads(8)
      if (omp_get_thread_num() == 0)
        n = omp_get_num_threads();
    }
    bad += t != 2 || n < 1 || n > 2;
  }
  CHECK(bad == 0, "%d host threads' kernels did not keep thread_limit(2)",
        bad);

  /* The next kernel without the clause is not limited by the last one. */
  int host_tl = omp_get_thread_limit();
  tl = -1;
#pragma omp target map(tofrom: tl)
  tl = omp_get_thread_limit();
  CHECK(tl == host_tl, "a kernel without thread_limit sees %d, want %d", tl,
        host_tl);
  return tc_done();
}
