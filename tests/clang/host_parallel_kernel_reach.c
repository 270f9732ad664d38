// Kernels launched from a host parallel region, in an image that also has
// kernels calling into libomp.  A target region runs on a new initial
// thread of the device: outside its own parallel regions omp_in_parallel()
// is 0 and omp_get_level() 0, however the host launched it, also when the
// call is made by a function the kernel calls, directly or through a
// pointer.  The emu device runs a kernel on the launching thread only when
// its code cannot reach libomp (src/plugins/emu/loader/reach.c); these
// kernels check the answers; the trace says which kernels may run there.
// RUN-ENV: OMPEMU_TRACE=2
// EXPECT-STDERR: image dev0.img0: 1 of 6 kernels reach no libomp call (they may run on the launching thread)
// SKIP-MODE-x86: LLVM 14's x86_64 plugin runs every kernel on the calling thread (omp_in_parallel answers 1)
// LLVM14-FAILS: LLVM 14's host plugin runs kernels on the calling thread
#define _GNU_SOURCE
#include "check.h"
#include <omp.h>
#include <unistd.h>

#define T 4
#define N 64

#pragma omp declare target
__attribute__((noinline)) static int levels(void) {
  return omp_in_parallel() * 10 + omp_get_level();
}
int (*global_pointer)(void) = levels; /* -O2: call *global_pointer(%rip) */
#pragma omp end declare target

int main(void) {
  int plain[T], direct[T], called[T], pointer[T], global[T], teams_sum[T];
#pragma omp parallel num_threads(T)
  {
    int t = omp_get_thread_num();
    long tid = 0;
    int a[N];
    for (int i = 0; i < N; i++)
      a[i] = i;
    /* No libomp call anywhere in this kernel: may run right here. */
#pragma omp target map(tofrom: a) map(from: tid)
    {
      for (int i = 0; i < N; i++)
        a[i] *= 2;
      tid = (long)gettid(); /* a libc call */
    }
    CHECK(tid > 0, "gettid() = %ld", tid);
#pragma omp target map(from: direct[t:1])
    direct[t] = omp_in_parallel() * 10 + omp_get_level();
#pragma omp target map(from: called[t:1])
    called[t] = levels();
#pragma omp target map(from: pointer[t:1])
    {
      int (*volatile via_pointer)(void) = levels;
      pointer[t] = via_pointer();
    }
#pragma omp target map(from: global[t:1])
    global[t] = global_pointer();
    int s = 0;
#pragma omp target teams distribute parallel for reduction(+: s) map(tofrom: s)
    for (int i = 0; i < N; i++)
      s += a[i];
    teams_sum[t] = s;
    plain[t] = 0;
    for (int i = 0; i < N; i++)
      plain[t] += a[i];
  }
  for (int t = 0; t < T; t++) {
    CHECK(direct[t] == 0, "thread %d: in the kernel omp_in_parallel()*10 + "
          "omp_get_level() = %d", t, direct[t]);
    CHECK(called[t] == 0, "thread %d: from a called function: %d", t,
          called[t]);
    CHECK(pointer[t] == 0, "thread %d: through a pointer: %d", t, pointer[t]);
    CHECK(global[t] == 0, "thread %d: through a global pointer: %d", t,
          global[t]);
    CHECK(teams_sum[t] == N * (N - 1), "thread %d: sum %d", t, teams_sum[t]);
    CHECK(plain[t] == N * (N - 1), "thread %d: plain kernel sum %d", t,
          plain[t]);
  }
  return tc_done();
}
