/* Timeline test program: many small constructs, more events than a
 * thread's buffer holds when OMPEMU_TIMELINE_EVENTS is small. */
#include <stdio.h>

static int eps[16];

int main(void) {
  for (int k = 0; k < 400; k++) {
#pragma omp target map(tofrom: eps)
    eps[k % 16] += 1;
  }
  int sum = 0;
  for (int i = 0; i < 16; i++)
    sum += eps[i];
  printf("many: %s\n", sum == 400 ? "ok" : "FAILED");
  return sum != 400;
}
