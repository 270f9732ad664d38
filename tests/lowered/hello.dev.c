/* Device side of the lowered "hello": the kernel and its entry, with the
 * same name as the host entry.  Built with cc -shared -fPIC. */
#include <stdint.h>

#include <ompemu/abi.h>

#define N 64

void __omp_offloading_lowered_hello_l12(int *a, long *info) {
  for (int i = 0; i < N; i++)
    a[i] = 2 * a[i] + i;
  info[0] = 1;
  info[1] = (long)(uintptr_t)a;
}

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_lowered_hello_l12,
         "__omp_offloading_lowered_hello_l12", 0, 0, 0},
};
