// `target teams distribute parallel for` whose parallel region is
// serialized by an if clause that is false (`if(parallel: c)`, and `if(c)`,
// which also keeps the construct on the host), after kernels that made the
// device thread lead real parallel teams.  libomp 14 aborts there
// ("Assertion failure at kmp_runtime.cpp(1122)", issue 15 item 2): a thread
// that has led a real team keeps that team's task teams in its hot team,
// and a later teams construct of one team with a serialized parallel
// region fails its check.  The emu device forks such a construct on a
// fresh thread (src/plugins/emu/fresh_root.c); `if(c)` runs on the host
// thread, which the emu device's kernels never touched.
// SKIP-MODE-x86: LLVM's x86_64 plugin runs kernels on the calling thread, where libomp 14 aborts; ompemu's fix is in its emu device
// LLVM14-FAILS: libomp 14 aborts in __kmp_serialized_parallel (kmp_runtime.cpp:1122)
#include "check.h"
#include <omp.h>

#define N 1000

static int a[N], nthr[N];

int main(int argc, char **argv) {
  (void)argv;
  int c = argc > 100; /* false, but not to the compiler */
  for (int i = 0; i < N; i++)
    a[i] = i;
  /* A real parallel region inside one (default) team: the device thread
   * leads a real team. */
#pragma omp target teams distribute parallel for map(tofrom: a)
  for (int i = 0; i < N; i++)
    a[i] += 1;
  /* The same with its parallel region serialized. */
#pragma omp target teams distribute parallel for if(parallel: c) \
    map(tofrom: a, nthr)
  for (int i = 0; i < N; i++) {
    a[i] += 10;
    nthr[i] = omp_get_num_threads();
  }
  for (int i = 0; i < N; i++) {
    CHECK(a[i] == i + 11, "if(parallel: c): a[%d] = %d", i, a[i]);
    CHECK(nthr[i] == 1, "if(parallel: c): %d threads at %d", nthr[i], i);
  }
  /* Four teams, then one team asked for, serialized again. */
#pragma omp target teams distribute parallel for num_teams(4) map(tofrom: a)
  for (int i = 0; i < N; i++)
    a[i] += 100;
#pragma omp target teams distribute parallel for num_teams(1) \
    if(parallel: c) map(tofrom: a)
  for (int i = 0; i < N; i++)
    a[i] += 1000;
  /* if(c): neither offloaded nor parallel; runs on this (host) thread. */
#pragma omp target teams distribute parallel for if(c) map(tofrom: a, nthr)
  for (int i = 0; i < N; i++) {
    a[i] += 10000;
    nthr[i] = omp_get_num_threads();
  }
  for (int i = 0; i < N; i++) {
    CHECK(a[i] == i + 11111, "a[%d] = %d, expected %d", i, a[i], i + 11111);
    CHECK(nthr[i] == 1, "if(c): %d threads at %d", nthr[i], i);
  }
  return tc_done();
}
