// The data-movement report (--report): A goes to the device twice with the
// same bytes (a repeated transfer) and comes back unchanged (a round trip:
// the kernel only reads it), C is entered and never used by a kernel.  The
// report changes no exit status.
// OMPEMU-RUN: --report
// EXPECT-STDERR: ompemu report: data movement
// EXPECT-STDERR:   to the device: 4 copies, 24008 bytes; to the host: 4 copies, 24008 bytes
// EXPECT-STDERR:   repeated transfers to the device (it already had these bytes): 1, 8000 bytes
// EXPECT-STDERR:             8000 bytes  a[0:n] (declared at report_data_movement.c:20), 1 time at report_data_movement.c:31
// EXPECT-STDERR:   round trips (copied back unchanged: no kernel changed them): 2, 16000 bytes
// EXPECT-STDERR:             8000 bytes  a[0:n] (declared at report_data_movement.c:20), 1 time at report_data_movement.c:27
// EXPECT-STDERR:   device allocations no kernel used: 1, 8000 bytes
// EXPECT-STDERR:             8000 bytes  c[0:n] (declared at report_data_movement.c:21), 1 time at report_data_movement.c:24
// EXPECT-STDOUT: s = 499500, b[1] = 2
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int n = 1000;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  double *c = calloc(n, sizeof *c), s = 0;
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target enter data map(to: c[0:n])
  for (int k = 0; k < 2; k++) {
    if (k == 0) {
#pragma omp target map(tofrom: a[0:n]) map(from: b[0:n])
      for (int i = 0; i < n; i++)
        b[i] = a[i] + 1;
    } else {
#pragma omp target map(tofrom: a[0:n], s)
      for (int i = 0; i < n; i++)
        s += a[i];
    }
  }
#pragma omp target exit data map(delete: c[0:n])
  printf("s = %g, b[1] = %g\n", s, b[1]);
  free(a);
  free(b);
  free(c);
  return 0;
}
