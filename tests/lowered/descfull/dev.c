/* Device half of the descriptor tests: kernels that work only through the
 * descriptor they receive, so a missing attach shows.  seen[] reports what
 * the device saw: {base_addr, addendum, rank, elements, sum}.  seen[0]
 * comes in as 1 when the descriptor has the addendum member (without it,
 * the mapped parent ends before that member). */
#include "desc.h"
#include <ompemu/abi.h>
#include <stdint.h>

/* x = 2x + 1 for every element; addendum[0] += 1. */
void __omp_offloading_descfull_update(struct desc *s, long *seen) {
  CFI_cdesc_t *d = (CFI_cdesc_t *)&s->d;
  int *add = seen[0] ? s->addendum : 0;
  double *p = d->base_addr;
  long n = desc_count(d);
  double sum = 0;
  for (long i = 0; i < n; i++) {
    sum += p[i];
    p[i] = 2 * p[i] + 1;
  }
  seen[0] = (long)(intptr_t)p;
  seen[1] = (long)(intptr_t)add;
  seen[2] = d->rank;
  seen[3] = n;
  seen[4] = (long)sum;
  if (add)
    add[0] += 1;
}

/* Only reports (no writes): checks the attach after copies of the parent. */
void __omp_offloading_descfull_look(struct desc *s, long *seen) {
  CFI_cdesc_t *d = (CFI_cdesc_t *)&s->d;
  int *add = seen[0] ? s->addendum : 0;
  double *p = d->base_addr;
  long n = desc_count(d);
  double sum = 0;
  for (long i = 0; i < n; i++)
    sum += p[i];
  seen[0] = (long)(intptr_t)p;
  seen[1] = (long)(intptr_t)add;
  seen[2] = d->rank;
  seen[3] = n;
  seen[4] = (long)sum;
}

__tgt_offload_entry descfull_dev_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)__omp_offloading_descfull_update, "__omp_offloading_descfull_update", 0, 0, 0},
    {(void *)__omp_offloading_descfull_look, "__omp_offloading_descfull_look", 0, 0, 0},
};
