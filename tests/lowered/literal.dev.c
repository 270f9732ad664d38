/* Device side of the lowered "literal": the kernel stores the int it got
 * by value (the low 4 bytes of its pointer-sized argument). */
#include <stdint.h>

#include <ompemu/abi.h>

void __omp_offloading_lowered_literal_l6(void *t, int *out) {
  *out = (int)(uint32_t)(uintptr_t)t;
}

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_lowered_literal_l6,
         "__omp_offloading_lowered_literal_l6", 0, 0, 0},
};
