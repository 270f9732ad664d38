/* Device side of the lowered refcount test. */
#include <ompemu/abi.h>

void __omp_offloading_lowered_refcount_l10(int *x) {
  for (int i = 0; i < 32; i++)
    x[i] += 1000;
}

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_lowered_refcount_l10,
         "__omp_offloading_lowered_refcount_l10", 0, 0, 0},
};
