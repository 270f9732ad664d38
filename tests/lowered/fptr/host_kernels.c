/* Host half of the kernels of device_kernels.c: region ids and their
 * offload entries (same names as the device's).  KP is the prefix. */
#include <ompemu/abi.h>

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define K(name) CAT(KP, name)
#define STR2(x) #x
#define STR(x) STR2(x)

/* Region ids: only their addresses matter (as clang's .region_id). */
const char K(id)[4] = {0};

__tgt_offload_entry K(kernel_entries)[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)&K(id)[0], STR(KP) "translate", 0, 0, 0},
    {(void *)&K(id)[1], STR(KP) "call", 0, 0, 0},
    {(void *)&K(id)[2], STR(KP) "table", 0, 0, 0},
    {(void *)&K(id)[3], STR(KP) "threads", 0, 0, 0},
};
