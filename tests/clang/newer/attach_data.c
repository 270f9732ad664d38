// ATTACH entries (clang 22; PTR_AND_OBJ before) through data constructs
// only, read back with use_device_addr / use_device_ptr and
// omp_target_memcpy: a struct with two pointers whose sections enter
// together (s.q[0:4], s.r[1:1]: the device pointer keeps the distance to
// its section), `target update to(s)` keeping the device pointers, exit
// data restoring the host ones, and a mapped pointer variable with its
// section (pq, pq[1:2]).  No kernel: this runs before __tgt_target_kernel
// is wired.
// Clang 16 lowers map(to: pq) map(to: pq[1:2]) in one construct without
// attaching pq to its section (LLVM 16's own runtime leaves the device pq
// holding the host address, as ompemu does), hence 19 and later.
// MIN-CLANG: 19
#include "check.h"
#include <omp.h>

struct S {
  int n;
  int *q;
  int *r;
};

static void fetch(void *dst, void *dev_src, size_t n) {
  omp_target_memcpy(dst, dev_src, n, 0, 0, omp_get_initial_device(),
                    omp_get_default_device());
}

int main(void) {
  int q[4] = {1, 2, 3, 4}, r[2] = {5, 6};
  struct S s = {4, q, r};
  int *r1 = &r[1];
#pragma omp target enter data map(to: s, s.q[0:4], s.r[1:1])
  void *ds_addr, *dq, *dr1;
#pragma omp target data use_device_addr(s, q) use_device_ptr(r1)
  {
    ds_addr = &s;
    dq = q;
    dr1 = r1;
  }
  CHECK(ds_addr != (void *)&s && dq != (void *)q && dr1 != (void *)r1,
        "all three mapped: %p %p %p", ds_addr, dq, dr1);
  struct S ds;
  fetch(&ds, ds_addr, sizeof ds);
  CHECK(ds.n == 4, "device s.n = %d", ds.n);
  CHECK(ds.q == dq, "device s.q = %p, device q = %p", (void *)ds.q, dq);
  CHECK(ds.r + 1 == dr1, "device s.r + 1 = %p, device r[1] = %p", (void *)(ds.r + 1), dr1);
  CHECK(s.q == q && s.r == r, "host pointers changed: %p %p", (void *)s.q, (void *)s.r);

  s.n = 9;
#pragma omp target update to(s)
  fetch(&ds, ds_addr, sizeof ds);
  CHECK(ds.n == 9 && ds.q == dq && ds.r + 1 == dr1,
        "after update: n %d q %p r+1 %p", ds.n, (void *)ds.q, (void *)(ds.r + 1));

  int vals[4];
  fetch(vals, dq, sizeof vals);
  CHECK(vals[0] == 1 && vals[3] == 4, "device q = %d .. %d", vals[0], vals[3]);

#pragma omp target exit data map(from: s.q[0:4], s.r[1:1]) map(from: s)
  CHECK(s.q == q && s.r == r && s.n == 9, "host s after exit: n %d q %p r %p",
        s.n, (void *)s.q, (void *)s.r);

  int *pq = q, *q1 = &q[1];
#pragma omp target enter data map(to: pq) map(to: pq[1:2])
  void *dpq, *dq1;
#pragma omp target data use_device_addr(pq) use_device_ptr(q1)
  {
    dpq = &pq;
    dq1 = q1;
  }
  int *devval = NULL;
  fetch(&devval, dpq, sizeof devval);
  CHECK(devval + 1 == dq1, "device pq + 1 = %p, device q[1] = %p",
        (void *)(devval + 1), dq1);
  CHECK(pq == q, "host pq changed to %p", (void *)pq);
#pragma omp target exit data map(release: pq, pq[1:2])
  return tc_done();
}
