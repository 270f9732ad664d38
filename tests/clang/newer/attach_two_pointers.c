// A struct with two pointer members mapped with their sections in one
// region (clang 22: one ATTACH entry each), then entered with enter data,
// changed on the host and sent with `target update to(s.n)`, used by a
// later region, and taken back by exit data: device pointers are device
// addresses, host pointers never change, data right.
#include "check.h"
#include <stdint.h>

struct S {
  int n;
  double *a;
  int *b;
};

int main(void) {
  double a[6];
  int b[3] = {10, 20, 30};
  for (int i = 0; i < 6; i++) a[i] = i;
  struct S s = {3, a, b};
  uintptr_t da = 0, db = 0;
#pragma omp target map(tofrom: s, s.a[0:6], s.b[0:3]) map(from: da, db)
  {
    for (int i = 0; i < 6; i++) s.a[i] *= 2;
    for (int i = 0; i < s.n; i++) s.b[i] += 1;
    da = (uintptr_t)s.a;
    db = (uintptr_t)s.b;
  }
  CHECK(a[5] == 10 && b[2] == 31, "a[5] = %g, b[2] = %d", a[5], b[2]);
  CHECK(da != (uintptr_t)a && db != (uintptr_t)b, "device pointers are host ones: %#lx %#lx",
        (unsigned long)da, (unsigned long)db);
  CHECK(s.a == a && s.b == b, "host pointers changed: %p %p", (void *)s.a, (void *)s.b);

#pragma omp target enter data map(to: s, s.a[0:6], s.b[0:3])
  s.n = 2;
#pragma omp target update to(s)
  int sum = 0;
#pragma omp target map(tofrom: sum)
  for (int i = 0; i < s.n; i++) sum += s.b[i] + (int)s.a[i];
  CHECK(sum == 11 + 21 + 0 + 2, "sum = %d", sum);
#pragma omp target
  s.b[0] = -1;
#pragma omp target exit data map(from: s.b[0:3]) map(release: s.a[0:6]) map(from: s)
  CHECK(b[0] == -1 && s.n == 2, "b[0] = %d, s.n = %d", b[0], s.n);
  CHECK(s.a == a && s.b == b, "host pointers changed: %p %p", (void *)s.a, (void *)s.b);
  return tc_done();
}
