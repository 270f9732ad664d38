// An array of structs whose pointer members hold host addresses, mapped
// without their pointees: the device copy carries aliases in their place,
// and the copy back puts the host values back, the 100 past the first
// 3 KiB included (the pass over the copy back that finds where the
// aliases begin).  The kernel never follows them: no finding.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: 300 pointers back, sum 45150
#include <stdio.h>

struct item {
  long v;
  double *p;
};

static struct item items[300];
static double host[300];

int main(void) {
  for (int i = 0; i < 300; i++) {
    items[i].v = i;
    items[i].p = i < 200 ? NULL : &host[i];
  }
  for (int k = 0; k < 3; k++) {
#pragma omp target map(tofrom: items)
    for (int i = 0; i < 300; i++)
      items[i].v += items[i].p != NULL;
  }
  int back = 0;
  long sum = 0;
  for (int i = 0; i < 300; i++) {
    back += items[i].p == (i < 200 ? NULL : &host[i]);
    sum += items[i].v;
  }
  printf("%d pointers back, sum %ld\n", back, sum);
  return 0;
}
