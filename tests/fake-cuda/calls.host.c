/* Driver calls per region through ompemu's runtime and the cuda plugin on
 * the CUDA test double: what `#pragma omp target` costs in calls for an
 * empty region, a region with a 4 KiB map(tofrom:), and an enter/exit data
 * pair of a small buffer (the rows of `make bench`).  Prints one line per
 * kind, "calls KIND TOTAL (per function...)", measured over REPS regions
 * after a warm-up; e2e.sh checks them. */
#include "lowered.h"

#include <dlfcn.h>
#include <string.h>

REGION_ID(__omp_offloading_calls_empty_region_id);
REGION_ID(__omp_offloading_calls_bump_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&__omp_offloading_calls_empty_region_id,
     "__omp_offloading_calls_empty", 0, 0, 0},
    {(void *)&__omp_offloading_calls_bump_region_id,
     "__omp_offloading_calls_bump", 0, 0, 0},
};

#define REPS 10
static char buf[4096];
static double small[64];

static void empty_region(void) {
  int rc = __tgt_target_teams_mapper(&lowered_loc, -1,
                                     (void *)&__omp_offloading_calls_empty_region_id,
                                     0, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0);
  CHECK(rc == 0, "empty region: rc %d", rc);
}

static void map4k_region(void) {
  void *base[1] = {buf}, *begin[1] = {buf};
  int64_t sizes[1] = {sizeof buf};
  int64_t types[1] = {TO | FROM | TARGET_PARAM};
  int rc = __tgt_target_teams_mapper(&lowered_loc, -1,
                                     (void *)&__omp_offloading_calls_bump_region_id,
                                     1, base, begin, sizes, types, NULL, NULL, 0, 0);
  CHECK(rc == 0, "4 KiB region: rc %d", rc);
}

static void enter_exit(void) {
  void *base[1] = {small}, *begin[1] = {small};
  int64_t sizes[1] = {sizeof small};
  int64_t to[1] = {TO}, release[1] = {0};
  __tgt_target_data_begin_mapper(&lowered_loc, -1, 1, base, begin, sizes, to,
                                 NULL, NULL);
  __tgt_target_data_end_mapper(&lowered_loc, -1, 1, base, begin, sizes, release,
                               NULL, NULL);
}

static long (*calls_total)(void);
static long (*calls_of)(const char *);
static void (*calls_reset)(void);

static const char *const names[] = {
    "cuCtxSetCurrent", "cuMemAlloc_v2", "cuMemFree_v2", "cuMemcpyHtoD_v2",
    "cuMemcpyDtoH_v2", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2",
    "cuLaunchKernel", "cuStreamSynchronize", "cuStreamCreate",
    "cuStreamQuery", "cuMemHostAlloc", "cuEventRecord",
    "cuEventSynchronize"};

static void count(const char *kind, void (*region)(void)) {
  region(); /* warm-up: image load, streams, pools */
  calls_reset();
  for (int i = 0; i < REPS; i++)
    region();
  long total = calls_total();
  printf("calls %s %ld.%ld", kind, total / REPS, total % REPS * 10 / REPS);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    long n = calls_of(names[i]);
    if (n)
      printf(" %s=%ld.%ld", names[i], n / REPS, n % REPS * 10 / REPS);
  }
  printf("\n");
}

int main(void) {
  void *fake = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  /* The plugin opens the driver at its first use. */
  empty_region();
  fake = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  CHECK(fake != NULL, "the driver test double is not loaded");
  if (!fake)
    return 1;
  *(void **)&calls_total = dlsym(fake, "fake_cuda_calls_total");
  *(void **)&calls_of = dlsym(fake, "fake_cuda_calls_of");
  *(void **)&calls_reset = dlsym(fake, "fake_cuda_calls_reset");
  CHECK(calls_total && calls_of && calls_reset, "not the test double");
  if (!calls_total || !calls_of || !calls_reset)
    return 1;
  count("empty", empty_region);
  count("map4k", map4k_region);
  count("enter_exit", enter_exit);
  CHECK(buf[0] == REPS + 1, "buf[0]=%d, expected %d", buf[0], REPS + 1);
  (void)host_entries;
  return LOWERED_RESULT();
}
