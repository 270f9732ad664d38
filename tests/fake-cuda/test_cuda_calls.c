/* Driver calls per target region, counted by the CUDA test double: the
 * plugin is called the way ompemu's runtime calls it for `make bench`'s
 * rows (an empty launch, a launch with a 4 KiB map(tofrom:), an enter/exit
 * data pair of a small buffer), and each kind of region must cost exactly
 * the calls listed here: no allocation or free once the pool holds the
 * block, no stream synchronisation but the one the runtime asks for, no
 * context switch where no call needs the context. */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define REPS 10

static __tgt_offload_entry *entries;
static void *scratch; /* device int the "empty" kernel writes */
static char host4k[4096];
static double host_small[64];

/* A region with nothing mapped (the test kernels all take a pointer: it
 * gets one allocated beforehand). */
static void empty_region(void) {
  __tgt_async_info ai = {NULL};
  void *args[1] = {scratch};
  ptrdiff_t offs[1] = {0};
  CHECK(P.run_team_async(0, entries[E_READ].addr, args, offs, 1, 1, 0, 0,
                         &ai) == 0);
  CHECK(P.synchronize(0, &ai) == 0);
}

/* As ompemu's runtime does `target map(tofrom: buf)`: allocate, copy in
 * synchronously (nothing is queued yet), launch on the construct's queue,
 * copy back on it, synchronize, free. */
static void map4k_region(void) {
  __tgt_async_info ai = {NULL};
  char *d = P.data_alloc(0, sizeof host4k, host4k, TARGET_ALLOC_DEFAULT);
  CHECK(d != NULL);
  CHECK(P.data_submit(0, d, host4k, sizeof host4k) == 0);
  void *args[2] = {d, (void *)(intptr_t)7};
  ptrdiff_t offs[2] = {0, 0};
  CHECK(P.run_team_async(0, entries[E_STORE].addr, args, offs, 2, 1, 0, 0,
                         &ai) == 0);
  CHECK(P.retrieve_async(0, host4k, d, sizeof host4k, &ai) == 0);
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(P.data_delete(0, d) == 0);
  CHECK(*(int *)host4k == 7);
  *(int *)host4k = 0;
}

static void enter_exit(void) {
  void *d = P.data_alloc(0, sizeof host_small, host_small, TARGET_ALLOC_DEFAULT);
  CHECK(d != NULL);
  CHECK(P.data_submit(0, d, host_small, sizeof host_small) == 0);
  CHECK(P.data_delete(0, d) == 0);
}

/* Calls per region of REGION after a warm-up, printed as the report's
 * figures, in *PER (per function, for the names asked). */
static long per_region(const char *kind, void (*region)(void)) {
  region();
  calls_reset();
  for (int i = 0; i < REPS; i++)
    region();
  long total = calls_total();
  fprintf(real_stderr, "# %s: %ld.%ld driver calls per region (",
          kind, total / REPS, total % REPS * 10 / REPS);
  static const char *const names[] = {
      "cuCtxSetCurrent", "cuMemAlloc_v2", "cuMemFree_v2", "cuMemcpyHtoD_v2",
      "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuLaunchKernel",
      "cuStreamSynchronize", "cuStreamCreate"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (calls_of(names[i]))
      fprintf(real_stderr, " %s %ld", names[i], calls_of(names[i]) / REPS);
  fprintf(real_stderr, " )\n");
  return total;
}

static void setup_device(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  entries = load_std()->EntriesBegin;
  scratch = P.data_alloc(0, sizeof(int), NULL, 0);
  CHECK(scratch != NULL);
}

static void c_empty_launch(void) {
  setup_device();
  long total = per_region("empty launch", empty_region);
  CHECK(calls_of("cuLaunchKernel") == REPS);
  CHECK(calls_of("cuStreamSynchronize") == REPS);
  CHECK(calls_of("cuCtxSetCurrent") == REPS); /* for the launch only */
  CHECK(total == 3 * REPS);
}

static void c_map4k_launch(void) {
  setup_device();
  long total = per_region("launch with 4 KiB tofrom", map4k_region);
  CHECK(calls_of("cuMemAlloc_v2") == 0); /* the pool's block */
  CHECK(calls_of("cuMemFree_v2") == 0);
  CHECK(calls_of("cuMemcpyHtoD_v2") == REPS);
  CHECK(calls_of("cuMemcpyDtoHAsync_v2") == REPS);
  CHECK(calls_of("cuLaunchKernel") == REPS);
  CHECK(calls_of("cuStreamSynchronize") == REPS);
  CHECK(calls_of("cuCtxSetCurrent") == 3 * REPS); /* copy, launch, copy */
  CHECK(total == 7 * REPS);
}

static void c_enter_exit(void) {
  setup_device();
  long total = per_region("enter/exit data of 512 bytes", enter_exit);
  CHECK(calls_of("cuMemAlloc_v2") == 0);
  CHECK(calls_of("cuMemFree_v2") == 0);
  CHECK(calls_of("cuMemcpyHtoD_v2") == REPS);
  CHECK(calls_of("cuCtxSetCurrent") == REPS);
  CHECK(total == 2 * REPS);
}

CASE(empty_launch)
CASE(map4k_launch)
CASE(enter_exit)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_empty_launch),
      cmocka_unit_test(t_map4k_launch),
      cmocka_unit_test(t_enter_exit),
  };
  return cmocka_run_group_tests_name("cuda plugin: driver calls per region",
                                     tests, NULL, NULL);
}
