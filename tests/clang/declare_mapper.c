// User-defined mappers (declare mapper): a default mapper that maps a
// struct's pointee with it, used by map(), by target update and by an
// array of such structs.
#include "check.h"

typedef struct { int len; double *buf; } vec_t;
#pragma omp declare mapper(vec_t v) map(v, v.buf[0:v.len])
typedef struct { int n; int *p; } ivec_t;
#pragma omp declare mapper(half: ivec_t v) map(v.n, v.p[0:v.n / 2])

int main(void) {
  vec_t v = {8, malloc(8 * sizeof(double))};
  double *host_buf = v.buf;
  for (int i = 0; i < 8; i++) v.buf[i] = i;
#pragma omp target map(tofrom: v)
  for (int i = 0; i < v.len; i++) v.buf[i] += 0.5;
  CHECK(v.buf == host_buf, "host pointer overwritten");
  for (int i = 0; i < 8; i++) CHECK(v.buf[i] == i + 0.5, "buf[%d] = %g", i, v.buf[i]);

  vec_t arr[3];
  for (int k = 0; k < 3; k++) {
    arr[k].len = 4;
    arr[k].buf = malloc(4 * sizeof(double));
    for (int i = 0; i < 4; i++) arr[k].buf[i] = k;
  }
#pragma omp target map(tofrom: arr)
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < arr[k].len; i++) arr[k].buf[i] += 10 * i;
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < 4; i++) CHECK(arr[k].buf[i] == k + 10 * i, "arr[%d].buf[%d] = %g", k, i, arr[k].buf[i]);

  ivec_t iv = {10, malloc(10 * sizeof(int))};
  for (int i = 0; i < 10; i++) iv.p[i] = i;
#pragma omp target map(mapper(half), tofrom: iv)
  for (int i = 0; i < iv.n / 2; i++) iv.p[i] = -iv.p[i];
  for (int i = 0; i < 10; i++) CHECK(iv.p[i] == (i < 5 ? -i : i), "iv.p[%d] = %d", i, iv.p[i]);
  for (int k = 0; k < 3; k++) free(arr[k].buf);
  free(iv.p);
  free(host_buf);
  return tc_done();
}
