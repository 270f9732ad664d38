// omp_target_associate_ptr / omp_target_disassociate_ptr /
// omp_target_is_present: an associated host array uses the given device
// memory (no copies: infinite reference count), errors are reported.
// EXPECT-STDERR: Libomptarget error: Not allowed to re-associate a different device ptr+offset with the same host ptr
// CHECK-ERRORS: omp_target_associate_ptr is misused on purpose
#include "check.h"
#include <omp.h>

#define N 32

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int h[N], vals[N + 4];
  for (int i = 0; i < N; i++) h[i] = -1;
  for (int i = 0; i < N + 4; i++) vals[i] = 1000 + i;
  char *d = omp_target_alloc(sizeof vals, dev);
  CHECK(d != NULL, "omp_target_alloc");
  if (!d) return tc_done();
  CHECK(omp_target_memcpy(d, vals, sizeof vals, 0, 0, dev, host) == 0, "memcpy");
  CHECK(!omp_target_is_present(h, dev), "present before associate");
  /* h[0] <-> d + 4 ints */
  CHECK(omp_target_associate_ptr(h, d, sizeof h, 4 * sizeof(int), dev) == 0, "associate");
  CHECK(omp_target_is_present(h, dev) && omp_target_is_present(&h[N - 1], dev), "not present after associate");
  CHECK(omp_target_associate_ptr(h, d, sizeof h, 4 * sizeof(int), dev) == 0, "same association again");
  CHECK(omp_target_associate_ptr(h, d, sizeof h, 0, dev) != 0, "a different offset was accepted");
  int first = 0;
#pragma omp target map(tofrom: h) map(from: first)
  {
    first = h[0];
    h[1] = 7;
  }
  CHECK(first == 1004, "device h[0] = %d, want 1004 (the associated memory)", first);
  CHECK(h[1] == -1, "tofrom copied back an associated (INF) mapping: %d", h[1]);
#pragma omp target update from(h)
  CHECK(h[0] == 1004 && h[1] == 7, "update from: %d %d", h[0], h[1]);
  CHECK(omp_target_disassociate_ptr(h, dev) == 0, "disassociate");
  CHECK(!omp_target_is_present(h, dev), "present after disassociate");
  CHECK(omp_target_disassociate_ptr(h, dev) != 0, "second disassociate succeeded");
  CHECK(omp_target_associate_ptr(h, d, sizeof h, 0, host) != 0, "associate on the host succeeded");
  CHECK(omp_target_is_present(h, host) == 1, "is_present on the initial device");
  omp_target_free(d, dev);
  return tc_done();
}
