// Declare-target globals whose host copies change in parts no kernel
// reads: a struct's host-only counter beside the coefficients the kernel
// uses, and one element of a table of which the kernel reads the first
// ten.  Only a read of the bytes that differ is a stale read, so no
// finding; a kernel that reads the changed element is one (the last
// construct, after the check below prints the first result).
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDOUT: r = 30 s = 45
// EXPECT-STDERR: ompemu: check: stale declare target variable tab: its host copy changed since the device last got it (3 of 8192 bytes differ) and kernel __omp_offloading_
// EXPECT-STDERR: _main_l45 at find_stale_global_other_part.c:45 starts with the old device copy
// EXPECT-STDERR: ompemu: check: 1 finding
// RUN-TWICE-SAME-STDERR
#include <stdio.h>

struct config {
  double coef[4];
  long host_calls; /* the host's bookkeeping */
};
struct config cfg = {{1, 2, 3, 4}, 0};
double tab[1024];
#pragma omp declare target to(cfg, tab)

static double apply(double x) {
  cfg.host_calls++;
  double r = 0;
#pragma omp target map(tofrom: r) firstprivate(x)
  for (int i = 0; i < 4; i++)
    r += cfg.coef[i] * x;
  return r;
}

int main(void) {
  double r = 0, s = 0, t = 0;
  for (int k = 0; k < 3; k++)
    r += apply(k);
  for (int i = 0; i < 1024; i++)
    tab[i] = i;
#pragma omp target update to(tab)
  tab[1000] = -1; /* no kernel below reads it, until the last */
#pragma omp target map(tofrom: s)
  for (int i = 0; i < 10; i++)
    s += tab[i];
  printf("r = %g s = %g\n", r, s);
#pragma omp target map(tofrom: t)
  t = tab[1000];
  return t != 1000;
}
