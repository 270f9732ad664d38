/* Lowered program whose kernel entry has a size field of 64 where 0 is
 * expected (a damaged entry table): the registration's size check must
 * call it a kernel's entry, not a declare target variable.  Nothing is
 * launched: the entry is taken for a variable. */
#include "lowered.h"

REGION_ID(__omp_offloading_lowered_kernelsize_l9_region_id);

static __tgt_offload_entry host_entries[] OFFLOAD_ENTRIES = {
    {(void *)&__omp_offloading_lowered_kernelsize_l9_region_id,
     "__omp_offloading_lowered_kernelsize_l9", 64, 0, 0},
};

int main(void) {
  (void)host_entries;
  printf("kernelsize: ok\n");
  return 0;
}
