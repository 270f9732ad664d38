/* Device half: the outlined region receives the device copy of the
 * descriptor; its base_addr must hold the DEVICE address of the data (on
 * ompemu a host address here would touch host memory, and the data would
 * come back unchanged: the host checks it). */
#include <ISO_Fortran_binding.h>
#include <ompemu/abi.h>
#include <stdint.h>
#include <stdio.h>

void __omp_offloading_descriptor_main(CFI_cdesc_t *d) {
  double *p = d->base_addr;
  printf("device: descriptor base_addr = %p\n", (void *)p);
  for (CFI_index_t i = 0; i < d->dim[0].extent; i++)
    p[i] *= 2;
}

__tgt_offload_entry device_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)__omp_offloading_descriptor_main, "__omp_offloading_descriptor_main", 0, 0, 0},
};
