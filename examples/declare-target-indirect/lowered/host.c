/* Host half of indirect.c, lowered by hand: the entries table (the kernel's
 * region id and one FPTR entry per indirect function, with the host
 * addresses) and the __tgt_target_mapper call clang would emit.
 * Build: cc host.c functions.c wrap.o -lomptarget (see build.sh). */
#include <ompemu/omptarget.h>
#include <stdio.h>

int square(int);
int cube(int);

/* Only the address of a region id matters. */
static const char region_id = 0;

__tgt_offload_entry host_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)&region_id, "__omp_offloading_indirect_main", 0, 0, 0},
    {(void *)square, "square", 0, OMP_DECLARE_TARGET_FPTR, 0},
    {(void *)cube, "cube", 0, OMP_DECLARE_TARGET_FPTR, 0},
};

/* The host version of the region (the fallback when offloading fails). */
static void host_region(int (**ops)(int), int *out) {
  for (int i = 0; i < 2; i++)
    out[i] = ops[i](3);
}

int main(void) {
  int (*ops[2])(int) = {square, cube};
  int out[2] = {0, 0};
  /* map(to: ops) map(from: out), both kernel parameters. */
  void *args[2] = {ops, out};
  int64_t sizes[2] = {sizeof ops, sizeof out};
  int64_t types[2] = {OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_TARGET_PARAM,
                      OMP_TGT_MAPTYPE_FROM | OMP_TGT_MAPTYPE_TARGET_PARAM};
  if (__tgt_target_mapper(NULL, -1, (void *)&region_id, 2, args, args, sizes,
                          types, NULL, NULL) != 0)
    host_region(ops, out);
  printf("square(3) = %d, cube(3) = %d\n", out[0], out[1]);
  printf("host square at %p, cube at %p\n", (void *)square, (void *)cube);
  return !(out[0] == 9 && out[1] == 27);
}
