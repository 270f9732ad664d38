/* Device side of globalsize.host.c: lowered_tab with 20 ints where the
 * host has 10. */
#include <ompemu/abi.h>

__attribute__((visibility("protected"))) int lowered_tab[20];

void __omp_offloading_lowered_globalsize_l14(long *out) {
  lowered_tab[19] = 1;
  *out = (long)sizeof(lowered_tab);
}

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)lowered_tab, "lowered_tab", sizeof(lowered_tab), 0, 0},
        {(void *)__omp_offloading_lowered_globalsize_l14,
         "__omp_offloading_lowered_globalsize_l14", 0, 0, 0},
};
