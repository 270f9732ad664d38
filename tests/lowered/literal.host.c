/* Lowered firstprivate int: what clang emits for
 *   int t = ...;
 *   #pragma omp target map(from: out)
 *   out = t;
 * t travels by value as a LITERAL of size 4 in a pointer-sized argument
 * slot; only its low 4 bytes are written, the others are whatever the
 * caller's stack held.  Here they are those of a host data address, so the
 * whole slot reads as a pointer into the host's data.  The kernel must see
 * t unchanged, in the checking mode too (which replaces host addresses
 * among kernel arguments by aliases, docs/check.md). */
#include "lowered.h"

REGION_ID(__omp_offloading_lowered_literal_l6_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&__omp_offloading_lowered_literal_l6_region_id,
     "__omp_offloading_lowered_literal_l6", 0, 0, 0},
};

static int host_data[1024];

int main(void) {
  uintptr_t slot = (uintptr_t)&host_data[512];
  int t = (int)(uint32_t)slot; /* the low 4 bytes of the slot */
  int out = 0;
  void *base[2] = {(void *)slot, &out}, *begin[2] = {(void *)slot, &out};
  int64_t sizes[2] = {sizeof(int), sizeof(int)};
  int64_t types[2] = {LITERAL | TARGET_PARAM | OMP_TGT_MAPTYPE_IMPLICIT,
                      FROM | TARGET_PARAM};
  int rc = __tgt_target_mapper(&lowered_loc, -1,
                               (void *)&__omp_offloading_lowered_literal_l6_region_id,
                               2, base, begin, sizes, types, NULL, NULL);
  CHECK(rc == 0, "__tgt_target_mapper returned %d", rc);
  CHECK(out == t, "the kernel saw t = %#x, expected %#x", (unsigned)out,
        (unsigned)t);
  (void)host_entries;
  if (LOWERED_RESULT() == 0)
    printf("literal: ok\n");
  return LOWERED_RESULT();
}
