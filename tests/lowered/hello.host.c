/* Lowered "hello": one kernel, one array mapped tofrom, and an info array
 * the kernel fills (who ran it, and the address it saw).  As written by a
 * compiler for:
 *   #pragma omp target map(tofrom: a) map(from: info)
 *   for (i = 0; i < N; i++) a[i] = 2 * a[i] + i;
 * LOWERED_EXPECT=fallback: the binary has no usable image, the runtime
 * returns non-zero and the host version runs. */
#include "lowered.h"

#include <string.h>

#define N 64

REGION_ID(__omp_offloading_lowered_hello_l12_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&__omp_offloading_lowered_hello_l12_region_id,
     "__omp_offloading_lowered_hello_l12", 0, 0, 0},
};

/* The host version of the region (the fallback). */
static void hello_host(int *a, long *info) {
  for (int i = 0; i < N; i++)
    a[i] = 2 * a[i] + i;
  info[0] = 2;
  info[1] = (long)(uintptr_t)a;
}

int lowered_hello(void) {
  int a[N];
  long info[2] = {0, 0};
  for (int i = 0; i < N; i++)
    a[i] = i + 1;

  void *base[2] = {a, info};
  void *begin[2] = {a, info};
  int64_t sizes[2] = {sizeof(a), sizeof(info)};
  int64_t types[2] = {TO | FROM | TARGET_PARAM, FROM | TARGET_PARAM};
  int rc = __tgt_target_mapper(&lowered_loc, -1,
                               (void *)&__omp_offloading_lowered_hello_l12_region_id,
                               2, base, begin, sizes, types, NULL, NULL);
  if (rc != 0)
    hello_host(a, info);

  if (lowered_expect_fallback()) {
    CHECK(rc != 0, "rc=%d, expected the host fallback", rc);
    CHECK(info[0] == 2, "info[0]=%ld, expected 2 (host ran)", info[0]);
  } else {
    CHECK(rc == 0, "__tgt_target_mapper returned %d", rc);
    CHECK(info[0] == 1, "info[0]=%ld, expected 1 (device ran)", info[0]);
    CHECK(info[1] != (long)(uintptr_t)a,
          "kernel saw the host address %#lx of a", info[1]);
  }
  for (int i = 0; i < N; i++)
    CHECK(a[i] == 2 * (i + 1) + i, "a[%d]=%d, expected %d", i, a[i],
          2 * (i + 1) + i);
  (void)host_entries;
  return LOWERED_RESULT();
}

#ifndef LOWERED_NO_MAIN
int main(void) {
  int r = lowered_hello();
  if (r == 0)
    printf("hello: ok\n");
  return r;
}
#endif
