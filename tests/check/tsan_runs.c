// A program built with ThreadSanitizer runs on the emu device (the device
// ranges lie in what TSan leaves to the application; before, TSan stopped
// the run with "mmap at bad address"), without reports.
// CFLAGS: -fsanitize=thread
// REQUIRES: thread
// RUN-ENV: TSAN_OPTIONS=ignore_noninstrumented_modules=1
// EXPECT-STDOUT: sum 499500
#include <stdio.h>

int main(void) {
  int n = 1000, sum = 0;
  double a[1000];
  for (int i = 0; i < n; i++)
    a[i] = i;
#pragma omp target map(to: a) map(tofrom: sum)
  for (int i = 0; i < n; i++)
    sum += (int)a[i];
  printf("sum %d\n", sum);
  return sum != 499500;
}
