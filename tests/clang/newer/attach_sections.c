// Pointer sections that clang 22 maps with ATTACH (0x4000) entries instead
// of PTR_AND_OBJ (clang 14-19): p[a:b], s.q[..] with and without the
// struct, ps[0:1] with ps->q[..], a section shorter than a pointer (the
// ATTACH entry is 8 bytes whatever the section), enter data then use, and a
// pointer that is not mapped itself.  On the device the pointers must hold
// device addresses (ompemu's data range on the emu device) and the data
// must be right.  (Not the t.ps->q[..], t.k pattern: clang 22 maps t.ps
// wrongly there.)
#include "check.h"
#include <stdint.h>

struct S {
  int n;
  int *q;
};

/* ompemu's emu device: data at 0x2000_0000_0000 + 1 GiB per device. */
static int is_device_data(uintptr_t a) {
  const char *d = tc_device();
  if (!d || strcmp(d, "emu") != 0)
    return 1; /* not on ompemu's emu device: nothing to say */
  return a >= 0x550000000000UL && a < 0x554000000000UL;
}

int main(void) {
  int *p = malloc(16 * sizeof *p);
  for (int i = 0; i < 16; i++) p[i] = i;

  /* p[a:b] */
  uintptr_t seen = 0;
#pragma omp target map(tofrom: p[2:5]) map(from: seen)
  {
    for (int i = 2; i < 7; i++) p[i] *= 10;
    seen = (uintptr_t)&p[2];
  }
  for (int i = 0; i < 16; i++)
    CHECK(p[i] == (i >= 2 && i < 7 ? 10 * i : i), "p[%d] = %d", i, p[i]);
  CHECK(is_device_data(seen), "p[2:5] on the device at %#lx", (unsigned long)seen);

  /* map(to: s, s.q[0:4]): the whole struct, then its pointee */
  int q[4] = {1, 2, 3, 4};
  struct S s = {4, q};
  int sum = 0;
  uintptr_t devq = 0;
#pragma omp target map(to: s, s.q[0:4]) map(tofrom: sum) map(from: devq)
  {
    for (int i = 0; i < s.n; i++) sum += s.q[i];
    devq = (uintptr_t)s.q;
  }
  CHECK(sum == 10, "sum through s.q = %d", sum);
  CHECK(devq != (uintptr_t)q && is_device_data(devq), "device s.q = %#lx (host %p)", (unsigned long)devq, (void *)q);
  CHECK(s.q == q, "host s.q changed to %p", (void *)s.q);

  /* members only: s.n and s.q[0:4] (clang 22: the pointer member itself
   * implicitly, data, attach) */
#pragma omp target map(tofrom: s.n, s.q[0:4])
  {
    for (int i = 0; i < 4; i++) s.q[i] += s.n;
    s.n = -1;
  }
  CHECK(s.n == -1 && q[0] == 5 && q[3] == 8, "s.n %d q %d %d %d %d", s.n, q[0], q[1], q[2], q[3]);
  s.n = 4;

  /* ps[0:1] and ps->q[0:4] */
  struct S *ps = &s;
#pragma omp target map(tofrom: ps[0:1], ps->q[0:4]) map(from: devq)
  {
    ps->q[1] = 77;
    ps->n = 5;
    devq = (uintptr_t)ps->q;
  }
  CHECK(q[1] == 77 && s.n == 5, "through ps: q[1] = %d, n = %d", q[1], s.n);
  CHECK(is_device_data(devq), "device ps->q = %#lx", (unsigned long)devq);
  CHECK(s.q == q, "host s.q changed to %p", (void *)s.q);

  /* a one-byte section: the attach entry must not map 8 bytes there */
  char c[16];
  memset(c, 'a', sizeof c);
  char *pc = c;
#pragma omp target map(tofrom: pc[3:1])
  pc[3] = 'Z';
#pragma omp target map(tofrom: pc[4:1])
  pc[4] = 'Y';
  CHECK(c[2] == 'a' && c[3] == 'Z' && c[4] == 'Y' && c[5] == 'a', "c = %.16s", c);

  /* enter data with the pointer and its pointee, used by a later region,
   * then taken back */
  int e[8];
  for (int i = 0; i < 8; i++) e[i] = i;
  struct S t = {8, e};
#pragma omp target enter data map(to: t, t.q[0:8])
  int got = 0;
#pragma omp target map(from: got)
  {
    for (int i = 0; i < t.n; i++) t.q[i] *= 2;
    got = t.q[7];
  }
  CHECK(got == 14, "t.q[7] on the device = %d", got);
#pragma omp target exit data map(from: t.q[0:8]) map(release: t)
  CHECK(e[0] == 0 && e[5] == 10 && e[7] == 14, "e = %d .. %d %d", e[0], e[5], e[7]);
  CHECK(t.q == e, "host t.q changed to %p", (void *)t.q);

  free(p);
  return tc_done();
}
