/* lowered-hello, device side: the kernel and the device's own entries
 * table, built as an ordinary shared object (cc -shared -fPIC).  The
 * runtime pairs this entry with the host's by name. */
#include <ompemu/abi.h>

/* Kernel parameters are the device addresses of the TARGET_PARAM args. */
void __omp_offloading_hello_main_l8(int *a) {
  for (int i = 0; i < 8; i++)
    a[i] *= 10;
}

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_hello_main_l8,
         "__omp_offloading_hello_main_l8", 0, 0, 0},
};
