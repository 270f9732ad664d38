/* Lowered Fortran descriptor maps (docs/descriptor-mapping.md):
 * a CFI_cdesc_t (gfortran's ISO_Fortran_binding.h) of rank 1 and rank 2 is
 * mapped as a record whose base_addr member is a pointer: the parent entry
 * for the descriptor, and base_addr's pointee as MEMBER_OF(parent) |
 * PTR_AND_OBJ, as MapInfoFinalizationPass expands
 *   !$omp target map(tofrom: a)
 * argv[1] = parent-first (clang/flang order) or member-first (the member
 * entry listed before its parent, as a front end may emit).  The kernel
 * scales every element through the descriptor it received and reports the
 * device addresses it saw; on return the host descriptor must hold its own
 * base_addr again and the data must be scaled. */
#include "lowered.h"

#include <ISO_Fortran_binding.h>
#include <string.h>

REGION_ID(__omp_offloading_lowered_desc_r1_region_id);
REGION_ID(__omp_offloading_lowered_desc_r2_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&__omp_offloading_lowered_desc_r1_region_id,
     "__omp_offloading_lowered_desc_r1", 0, 0, 0},
    {(void *)&__omp_offloading_lowered_desc_r2_region_id,
     "__omp_offloading_lowered_desc_r2", 0, 0, 0},
};

/* Map descriptor D (DSIZE bytes) whose base_addr points at BYTES bytes,
 * plus SEEN, in the order asked for, and launch REGION. */
static int launch(void *region, CFI_cdesc_t *d, size_t dsize, size_t bytes,
                  long *seen, int member_first) {
  int p = member_first ? 1 : 0, m = member_first ? 0 : 1;
  void *base[3], *begin[3];
  int64_t sizes[3], types[3];
  base[p] = d;
  begin[p] = d;
  sizes[p] = (int64_t)dsize;
  types[p] = TO | FROM | TARGET_PARAM;
  base[m] = &d->base_addr;
  begin[m] = d->base_addr;
  sizes[m] = (int64_t)bytes;
  types[m] = MEMBER_OF(p + 1) | PTR_AND_OBJ | TO | FROM;
  base[2] = begin[2] = seen;
  sizes[2] = 2 * sizeof(long);
  types[2] = FROM | TARGET_PARAM;
  return __tgt_target_mapper(&lowered_loc, -1, region, 3, base, begin, sizes,
                             types, NULL, NULL);
}

/* An array-pointer descriptor of RANK doubles at BASE (DSIZE bytes of
 * storage, zeroed first); the caller sets the dims. */
static void init_desc(CFI_cdesc_t *d, size_t dsize, void *base, int rank) {
  memset(d, 0, dsize);
  d->base_addr = base;
  d->elem_len = sizeof(double);
  d->version = CFI_VERSION;
  d->rank = (CFI_rank_t)rank;
  d->attribute = CFI_attribute_pointer;
  d->type = CFI_type_double;
}

static void set_dim(CFI_dim_t *dim, CFI_index_t extent, CFI_index_t sm) {
  dim->lower_bound = 1; /* Fortran default */
  dim->extent = extent;
  dim->sm = sm;
}

int main(int argc, char **argv) {
  int member_first = argc > 1 && strcmp(argv[1], "member-first") == 0;

  /* Rank 1: real(8) :: a(16) */
  double v1[16];
  for (int i = 0; i < 16; i++)
    v1[i] = i;
  CFI_CDESC_T(1) d1;
  init_desc((CFI_cdesc_t *)&d1, sizeof(d1), v1, 1);
  set_dim(&d1.dim[0], 16, sizeof(double));
  long seen[2] = {0, 0};
  int rc = launch((void *)&__omp_offloading_lowered_desc_r1_region_id,
                  (CFI_cdesc_t *)&d1, sizeof(d1), sizeof(v1), seen,
                  member_first);
  CHECK(rc == 0, "rank 1: launch returned %d", rc);
  CHECK(d1.base_addr == v1, "rank 1: host base_addr is %p, expected %p",
        d1.base_addr, (void *)v1);
  CHECK(d1.dim[0].extent == 16, "rank 1: extent %ld", (long)d1.dim[0].extent);
  CHECK(seen[0] != (long)(uintptr_t)&d1, "rank 1: kernel got the host desc");
  CHECK(seen[1] != 0 && seen[1] != (long)(uintptr_t)v1,
        "rank 1: device base_addr %#lx (host %p): not attached", seen[1],
        (void *)v1);
  for (int i = 0; i < 16; i++)
    CHECK(v1[i] == 10.0 * i + 1, "rank 1: a(%d)=%g, expected %g", i + 1, v1[i],
          10.0 * i + 1);

  /* Rank 2: real(8) :: b(4,6), column-major. */
  double v2[6][4];
  for (int j = 0; j < 6; j++)
    for (int i = 0; i < 4; i++)
      v2[j][i] = 100 * j + i;
  CFI_CDESC_T(2) d2;
  init_desc((CFI_cdesc_t *)&d2, sizeof(d2), v2, 2);
  set_dim(&d2.dim[0], 4, sizeof(double));
  set_dim(&d2.dim[1], 6, 4 * sizeof(double));
  seen[0] = seen[1] = 0;
  rc = launch((void *)&__omp_offloading_lowered_desc_r2_region_id,
              (CFI_cdesc_t *)&d2, sizeof(d2), sizeof(v2), seen, member_first);
  CHECK(rc == 0, "rank 2: launch returned %d", rc);
  CHECK(d2.base_addr == v2, "rank 2: host base_addr is %p, expected %p",
        d2.base_addr, (void *)v2);
  CHECK(seen[1] != 0 && seen[1] != (long)(uintptr_t)v2,
        "rank 2: device base_addr %#lx (host %p): not attached", seen[1],
        (void *)v2);
  for (int j = 0; j < 6; j++)
    for (int i = 0; i < 4; i++)
      CHECK(v2[j][i] == -(100.0 * j + i) + 0.25 * (i + 1) * (j + 1),
            "rank 2: b(%d,%d)=%g", i + 1, j + 1, v2[j][i]);
  (void)host_entries;
  if (!lowered_failures)
    printf("desc %s: ok\n", member_first ? "member-first" : "parent-first");
  return LOWERED_RESULT();
}
