// A struct mapped whole together with one of its members or a member's
// pointee in the same clause list (clang emits overlapping member entries
// for this; the lists are valid).  Based on LLVM's bug53727 and
// ompx_hold/struct tests.
#include "check.h"
#include <omp.h>

#define N 10

struct T { int a; int *p; };
struct S { int b; struct T t; };
struct P { int i; int j; };

int main(void) {
  int dev = omp_get_default_device();
  struct S s;
  s.b = 1;
  s.t.a = 2;
  s.t.p = malloc(N * sizeof(int));
  int *hp = s.t.p;
  for (int i = 0; i < N; i++) s.t.p[i] = i;
#pragma omp target enter data map(to: s, s.t.p[:N])
#pragma omp target
  for (int i = 0; i < N; i++) s.t.p[i] += i + s.t.a;
#pragma omp target update from(s.t.p[:N])
  for (int i = 0; i < N; i++) CHECK(s.t.p[i] == 2 * i + 2, "p[%d] = %d", i, s.t.p[i]);
  for (int i = 0; i < N; i++) s.t.p[i] = 100;
#pragma omp target update to(s.t.p[:N])
#pragma omp target
  for (int i = 0; i < N; i++) s.t.p[i] += 1;
#pragma omp target exit data map(from: s, s.t.p[:N])
  CHECK(s.t.p == hp, "host pointer overwritten");
  for (int i = 0; i < N; i++) CHECK(s.t.p[i] == 101, "p[%d] = %d after exit", i, s.t.p[i]);

  struct P q = {20, 30};
#pragma omp target data map(tofrom: q) map(tofrom: q.i) map(tofrom: q.j)
  {
    CHECK(omp_target_is_present(&q, dev) && omp_target_is_present(&q.j, dev), "q not present");
#pragma omp target map(tofrom: q)
    { q.i = 21; q.j = 31; }
  }
  CHECK(q.i == 21 && q.j == 31, "q = {%d, %d}", q.i, q.j);
  CHECK(!omp_target_is_present(&q, dev), "q present after the region");
  free(hp);
  return tc_done();
}
