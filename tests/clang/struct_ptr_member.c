// A struct with pointer members mapped together with their pointees: the
// device copy of the struct points at the device copies, the host struct
// keeps host pointers, updates re-attach.
#include "check.h"
#include <omp.h>

struct vec { int n; double *data; int *idx; };

int main(void) {
  struct vec v = {16, malloc(16 * sizeof(double)), malloc(4 * sizeof(int))};
  double *hd = v.data;
  int *hi = v.idx;
  for (int i = 0; i < 16; i++) v.data[i] = i;
  for (int i = 0; i < 4; i++) v.idx[i] = 3 * i;
  double sum = 0;
#pragma omp target map(tofrom: v, v.data[0:v.n]) map(to: v.idx[0:4]) map(tofrom: sum)
  {
    for (int i = 0; i < 4; i++) sum += v.data[v.idx[i]];
    for (int i = 0; i < v.n; i++) v.data[i] *= 2;
  }
  CHECK(v.data == hd && v.idx == hi, "host pointers overwritten: %p %p", (void *)v.data, (void *)v.idx);
  CHECK(sum == 0 + 3 + 6 + 9, "sum %g", sum);
  for (int i = 0; i < 16; i++) CHECK(v.data[i] == 2 * i, "data[%d] = %g", i, v.data[i]);

  /* unstructured: struct and pointee stay mapped, update to of the struct
     must not break the device pointer */
#pragma omp target enter data map(to: v, v.data[0:v.n])
  v.n = 8;
#pragma omp target update to(v)
#pragma omp target map(tofrom: sum)
  {
    sum = 0;
    for (int i = 0; i < v.n; i++) sum += v.data[i];
  }
  CHECK(sum == 2 * (0 + 1 + 2 + 3 + 4 + 5 + 6 + 7), "sum after update to(v): %g", sum);
#pragma omp target exit data map(from: v, v.data[0:16])
  CHECK(v.data == hd, "host data pointer after exit: %p", (void *)v.data);
  free(hd);
  free(hi);
  return tc_done();
}
