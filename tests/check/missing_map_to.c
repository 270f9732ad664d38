// A missing map(to:) reads as poison.  Default mode: the byte 0xA5 (the
// large block's poison is owed until the kernel starts: lazily written, but
// written).  Check mode (missing_map_to_nan.c): a NaN as double and float.
// EXPECT-STDOUT: default: 0xa5a5a5a5a5a5a5a5 0xa5a5a5a5
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  enum { N = 1 << 16 };
  double *d = malloc(N * sizeof *d);
  float *f = malloc(N * sizeof *f);
  for (int i = 0; i < N; i++)
    d[i] = f[i] = 1;
  double dv = 0;
  float fv = 0;
#pragma omp target map(alloc: d[0:N], f[0:N]) map(from: dv, fv)
  {
    dv = d[N - 1];
    fv = f[7];
  }
  if (argc > 1 && strcmp(argv[1], "check") == 0) {
    printf("check: %s %s\n", isnan(dv) ? "nan" : "number",
           isnan(fv) ? "nan" : "number");
  } else {
    uint64_t dbits;
    uint32_t fbits;
    memcpy(&dbits, &dv, 8);
    memcpy(&fbits, &fv, 4);
    printf("default: %#lx %#x\n", (unsigned long)dbits, fbits);
  }
  free(d);
  free(f);
  return 0;
}
