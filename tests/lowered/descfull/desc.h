/* Shared by both halves of the descriptor tests: a gfortran descriptor
 * (CFI_cdesc_t, storage for rank 3) followed by a second pointer member
 * that stands for flang's addendum. */
#include <ISO_Fortran_binding.h>

struct desc {
  CFI_CDESC_T(3) d;
  int *addendum;
};

/* Elements the descriptor describes (product of the extents). */
static inline long desc_count(const CFI_cdesc_t *d) {
  long n = 1;
  for (int i = 0; i < d->rank; i++)
    n *= d->dim[i].extent;
  return n;
}
