/* Lowered struct with a pointer member attached (docs/abi-clang14.md 6.1):
 *   struct S { int n; double *p; } s;
 *   #pragma omp target map(tofrom: s, s.p[0:s.n])
 * gives three entries: the combined entry for s (TARGET_PARAM), s itself as
 * MEMBER_OF(1), and s.p's pointee as MEMBER_OF(1) | PTR_AND_OBJ. */
#include "lowered.h"

struct S {
  int n;
  double *p;
};

REGION_ID(__omp_offloading_lowered_struct_l11_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&__omp_offloading_lowered_struct_l11_region_id,
     "__omp_offloading_lowered_struct_l11", 0, 0, 0},
};

int main(void) {
  enum { N = 10 };
  double data[N];
  for (int i = 0; i < N; i++)
    data[i] = i;
  struct S s = {N, data};
  long seen[2] = {0, 0}; /* device values of &s and s.p */

  void *base[4] = {&s, &s, &s.p, seen};
  void *begin[4] = {&s, &s, s.p, seen};
  int64_t sizes[4] = {sizeof(s), sizeof(s), N * sizeof(double), sizeof(seen)};
  int64_t types[4] = {TARGET_PARAM, MEMBER_OF(1) | TO | FROM,
                      MEMBER_OF(1) | PTR_AND_OBJ | TO | FROM,
                      FROM | TARGET_PARAM};
  int rc = __tgt_target_mapper(
      &lowered_loc, -1, (void *)&__omp_offloading_lowered_struct_l11_region_id,
      4, base, begin, sizes, types, NULL, NULL);
  CHECK(rc == 0, "__tgt_target_mapper returned %d", rc);
  CHECK(s.p == data, "host s.p is %p after the region, expected %p",
        (void *)s.p, (void *)data);
  CHECK(s.n == N + 1, "s.n=%d, expected %d", s.n, N + 1);
  CHECK(seen[0] != 0 && seen[0] != (long)(uintptr_t)&s,
        "kernel saw s at %#lx (host %p)", seen[0], (void *)&s);
  CHECK(seen[1] != 0 && seen[1] != (long)(uintptr_t)data,
        "device s.p was %#lx (host %p): not attached", seen[1], (void *)data);
  for (int i = 0; i < N; i++)
    CHECK(data[i] == i * 3.0 + 0.5, "data[%d]=%g, expected %g", i, data[i],
          i * 3.0 + 0.5);
  (void)host_entries;
  if (!lowered_failures)
    printf("struct: ok\n");
  return LOWERED_RESULT();
}
