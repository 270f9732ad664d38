/* Device side of the lowered struct test: the kernel reads the attached
 * pointer member, records what it saw, and updates the pointee. */
#include <stdint.h>

#include <ompemu/abi.h>

struct S {
  int n;
  double *p;
};

void __omp_offloading_lowered_struct_l11(struct S *s, long *seen) {
  seen[0] = (long)(uintptr_t)s;
  seen[1] = (long)(uintptr_t)s->p;
  for (int i = 0; i < s->n; i++)
    s->p[i] = s->p[i] * 3.0 + 0.5;
  s->n += 1;
}

__tgt_offload_entry device_entries[]
    __attribute__((section("omp_offloading_entries"), used)) = {
        {(void *)__omp_offloading_lowered_struct_l11,
         "__omp_offloading_lowered_struct_l11", 0, 0, 0},
};
