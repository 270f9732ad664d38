/* Device side of the lowered declare-target global: the device copy of
 * lowered_gv (protected, as clang 14 emits it, so the process's own
 * lowered_gv never interposes) and the kernel that uses it. */
#include <ompemu/abi.h>

__attribute__((visibility("protected"))) int lowered_gv = 5;

void __omp_offloading_lowered_global_l14(int *out) {
  lowered_gv += 1;
  *out = lowered_gv;
}

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)&lowered_gv, "lowered_gv", sizeof(lowered_gv), 0, 0},
        {(void *)__omp_offloading_lowered_global_l14,
         "__omp_offloading_lowered_global_l14", 0, 0, 0},
};
