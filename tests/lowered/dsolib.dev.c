/* Device image of the shared library in the two-descriptor test. */
#include <ompemu/abi.h>

void __omp_offloading_lowered_dsolib_l9(long *v) { v[2] = v[0] * v[0] + v[1] * v[1]; }

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_lowered_dsolib_l9,
         "__omp_offloading_lowered_dsolib_l9", 0, 0, 0},
};
