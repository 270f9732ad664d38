/* Host entries: the region id of the kernel (only its address matters). */
#include <ompemu/abi.h>

const char region_id = 0;
__tgt_offload_entry host_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)&region_id, "__omp_offloading_descriptor_main", 0, 0, 0},
};
