/* Device side of tests/fake-cuda/calls.host.c: an empty kernel and one that
 * bumps the first byte of a 4 KiB buffer. */
#include <ompemu/abi.h>

void __omp_offloading_calls_empty(void) {}

void __omp_offloading_calls_bump(char *buf) { buf[0]++; }

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_calls_empty, "__omp_offloading_calls_empty", 0,
         0, 0},
        {(void *)__omp_offloading_calls_bump, "__omp_offloading_calls_bump", 0,
         0, 0},
};
