/* Lowered "declare target to" global and "target update": as a compiler
 * would emit for
 *   int lowered_gv = 5;
 *   #pragma omp declare target to(lowered_gv)
 *   #pragma omp target map(from: out)   { lowered_gv += 1; out = lowered_gv; }
 *   #pragma omp target update from(lowered_gv) / to(lowered_gv)
 * The global's entry {&gv, "lowered_gv", sizeof gv, 0} makes the runtime
 * map the host variable to the device copy for the whole run. */
#include "lowered.h"

int lowered_gv = 5;
REGION_ID(__omp_offloading_lowered_global_l14_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&lowered_gv, "lowered_gv", sizeof(lowered_gv), 0, 0},
    {(void *)&__omp_offloading_lowered_global_l14_region_id,
     "__omp_offloading_lowered_global_l14", 0, 0, 0},
};

static int run_kernel(int *out) {
  void *base[1] = {out}, *begin[1] = {out};
  int64_t sizes[1] = {sizeof(*out)};
  int64_t types[1] = {FROM | TARGET_PARAM};
  return __tgt_target_mapper(
      &lowered_loc, -1, (void *)&__omp_offloading_lowered_global_l14_region_id,
      1, base, begin, sizes, types, NULL, NULL);
}

/* target update to/from(lowered_gv) */
static void update(int64_t type) {
  void *base[1] = {&lowered_gv}, *begin[1] = {&lowered_gv};
  int64_t sizes[1] = {sizeof(lowered_gv)};
  int64_t types[1] = {type};
  __tgt_target_data_update_mapper(&lowered_loc, -1, 1, base, begin, sizes,
                                  types, NULL, NULL);
}

int main(void) {
  int out = -1;
  int rc = run_kernel(&out);
  CHECK(rc == 0, "first launch returned %d", rc);
  CHECK(out == 6, "device copy started at %d, expected 5 (+1 = 6)", out - 1);
  CHECK(lowered_gv == 5, "host copy changed to %d without an update",
        lowered_gv);
  CHECK(omp_target_is_present(&lowered_gv, 0) == 1,
        "the global is not present on device 0");

  update(FROM);
  CHECK(lowered_gv == 6, "update from gave %d, expected 6", lowered_gv);

  lowered_gv = 100;
  update(TO);
  rc = run_kernel(&out);
  CHECK(rc == 0, "second launch returned %d", rc);
  CHECK(out == 101, "after update to(100) the kernel saw %d, expected 101",
        out);
  CHECK(lowered_gv == 100, "host copy is %d before update from", lowered_gv);
  update(FROM);
  CHECK(lowered_gv == 101, "update from gave %d, expected 101", lowered_gv);
  (void)host_entries;
  if (!lowered_failures)
    printf("global: ok\n");
  return LOWERED_RESULT();
}
