/* Lowered enter/exit data with reference counts:
 *   #pragma omp target enter data map(to: x[0:N])      (dyn refcount 1, copy)
 *   #pragma omp target enter data map(to: x[0:N])      (2, no copy)
 *   #pragma omp target      -> the kernel adds 1000 on the device
 *   #pragma omp target exit data map(from: x[0:N])     (1, no copy back)
 *   #pragma omp target exit data map(from: x[0:N])     (0, copy back, removed)
 * and "always": enter to, host change, enter always to, which copies again. */
#include "lowered.h"

#define N 32

REGION_ID(__omp_offloading_lowered_refcount_l10_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&__omp_offloading_lowered_refcount_l10_region_id,
     "__omp_offloading_lowered_refcount_l10", 0, 0, 0},
};

static int x[N];

static void data(int begin, int64_t type) {
  void *base[1] = {x}, *b[1] = {x};
  int64_t sizes[1] = {sizeof(x)};
  int64_t types[1] = {type};
  if (begin)
    __tgt_target_data_begin_mapper(&lowered_loc, -1, 1, base, b, sizes, types,
                                   NULL, NULL);
  else
    __tgt_target_data_end_mapper(&lowered_loc, -1, 1, base, b, sizes, types,
                                 NULL, NULL);
}

/* target map(tofrom: x) with x already present: the kernel adds 1000. */
static int kernel(void) {
  void *base[1] = {x}, *b[1] = {x};
  int64_t sizes[1] = {sizeof(x)};
  int64_t types[1] = {TO | FROM | TARGET_PARAM};
  return __tgt_target_mapper(
      &lowered_loc, -1,
      (void *)&__omp_offloading_lowered_refcount_l10_region_id, 1, base, b,
      sizes, types, NULL, NULL);
}

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = i;
  CHECK(omp_target_is_present(x, 0) == 0, "x present before enter data");
  data(1, TO);
  CHECK(omp_target_is_present(x, 0) == 1, "x absent after enter data");
  for (int i = 0; i < N; i++)
    x[i] = -1; /* a second enter "to" must not copy this */
  data(1, TO);
  CHECK(kernel() == 0, "launch failed");
  for (int i = 0; i < N; i++)
    CHECK(x[i] == -1, "x[%d]=%d: copied back while still mapped", i, x[i]);
  data(0, FROM);
  CHECK(omp_target_is_present(x, 0) == 1, "x removed at refcount 1");
  for (int i = 0; i < N; i++)
    CHECK(x[i] == -1, "x[%d]=%d: exit data copied back at refcount 2", i,
          x[i]);
  data(0, FROM);
  CHECK(omp_target_is_present(x, 0) == 0, "x still present at refcount 0");
  for (int i = 0; i < N; i++)
    CHECK(x[i] == i + 1000, "x[%d]=%d, expected %d", i, x[i], i + 1000);

  /* always: a second enter copies again. */
  data(1, TO);
  for (int i = 0; i < N; i++)
    x[i] = 7;
  data(1, TO | ALWAYS);
  CHECK(kernel() == 0, "launch failed");
  data(0, FROM);
  data(0, FROM | DELETE);
  CHECK(omp_target_is_present(x, 0) == 0, "x present after delete");
  for (int i = 0; i < N; i++)
    CHECK(x[i] == 1007, "always: x[%d]=%d, expected 1007", i, x[i]);
  (void)host_entries;
  if (!lowered_failures)
    printf("refcount: ok\n");
  return LOWERED_RESULT();
}
