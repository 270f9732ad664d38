/* Device side of the lowered descriptor test: kernels that walk a rank-1
 * and a rank-2 CFI descriptor through its strides (sm, in bytes). */
#include <stdint.h>

#include <ISO_Fortran_binding.h>
#include <ompemu/abi.h>

void __omp_offloading_lowered_desc_r1(CFI_cdesc_t *d, long *seen) {
  seen[0] = (long)(uintptr_t)d;
  seen[1] = (long)(uintptr_t)d->base_addr;
  char *p = d->base_addr;
  for (CFI_index_t i = 0; i < d->dim[0].extent; i++) {
    double *x = (double *)(p + i * d->dim[0].sm);
    *x = 10.0 * *x + 1;
  }
}

void __omp_offloading_lowered_desc_r2(CFI_cdesc_t *d, long *seen) {
  seen[0] = (long)(uintptr_t)d;
  seen[1] = (long)(uintptr_t)d->base_addr;
  char *p = d->base_addr;
  for (CFI_index_t j = 0; j < d->dim[1].extent; j++)
    for (CFI_index_t i = 0; i < d->dim[0].extent; i++) {
      double *x = (double *)(p + i * d->dim[0].sm + j * d->dim[1].sm);
      *x = -*x + 0.25 * (double)(i + 1) * (double)(j + 1);
    }
}

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_lowered_desc_r1,
         "__omp_offloading_lowered_desc_r1", 0, 0, 0},
        {(void *)__omp_offloading_lowered_desc_r2,
         "__omp_offloading_lowered_desc_r2", 0, 0, 0},
};
