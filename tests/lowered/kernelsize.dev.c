/* Device side of kernelsize.host.c: the kernel, a function. */
#include <ompemu/abi.h>

void __omp_offloading_lowered_kernelsize_l9(long *out) { *out = 1; }

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_lowered_kernelsize_l9,
         "__omp_offloading_lowered_kernelsize_l9", 0, 0, 0},
};
