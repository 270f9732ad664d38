/* Timeline test program: device code faults (a NULL store on the
 * device).  The process dies of SIGSEGV; the timeline written from the
 * signal handler must still be valid and show what ran before, and the
 * second construct (which cannot end before its kernel) as unfinished. */
#include <stdio.h>

static int delta[64];

int main(int argc, char **argv) {
  (void)argv;
  int *volatile bad = argc > 5 ? delta : NULL;
#pragma omp target map(tofrom: delta)
  delta[0] = 1;
  fprintf(stderr, "device_fault: first kernel done\n");
#pragma omp target map(tofrom: delta) is_device_ptr(bad)
  *bad = 1;
  return 0;
}
