/* Device half: the outlined region receives the device copy of the
 * descriptor; its base_addr must hold the DEVICE address of the data. */
#include <ISO_Fortran_binding.h>
#include <ompemu/abi.h>
#include <stdint.h>
#include <stdio.h>

void __omp_offloading_descriptor_main(CFI_cdesc_t *d) {
  double *p = d->base_addr;
  /* The emu device's data range starts at 0x200000000000. */
  if ((uintptr_t)p < 0x200000000000ULL || (uintptr_t)p >= 0x300000000000ULL) {
    fprintf(stderr, "device: descriptor base_addr %p is not a device address: not attached\n", (void *)p);
    return;
  }
  for (CFI_index_t i = 0; i < d->dim[0].extent; i++)
    p[i] *= 2;
}

__tgt_offload_entry device_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)__omp_offloading_descriptor_main, "__omp_offloading_descriptor_main", 0, 0, 0},
};
