/* The host side of a shared library with its own offload entries and its
 * own descriptor (its wrapper object is linked into the library), used
 * together with an executable that has another one.  Each registers and
 * unregisters separately (docs/abi-clang14.md 4.1). */
#include "lowered.h"

REGION_ID(__omp_offloading_lowered_dsolib_l9_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&__omp_offloading_lowered_dsolib_l9_region_id,
     "__omp_offloading_lowered_dsolib_l9", 0, 0, 0},
};

int lowered_dsolib(void) {
  long v[3] = {3, 4, 0};
  void *base[1] = {v}, *b[1] = {v};
  int64_t sizes[1] = {sizeof(v)};
  int64_t types[1] = {TO | FROM | TARGET_PARAM};
  int rc = __tgt_target_mapper(
      &lowered_loc, -1, (void *)&__omp_offloading_lowered_dsolib_l9_region_id,
      1, base, b, sizes, types, NULL, NULL);
  CHECK(rc == 0, "library kernel: launch returned %d", rc);
  CHECK(v[2] == 3 * 3 + 4 * 4, "library kernel computed %ld, expected 25",
        v[2]);
  (void)host_entries;
  return LOWERED_RESULT();
}
