// A section with a lower bound (u[1:N-1]) whose kernel, a teams loop,
// starts one element early: u[0] is read but not mapped.  Before its start
// a device block has no guard page, only slack in its first page; the
// checker watches that slack for kernels given the section's base and
// names the variable, the kernel and the construct, the same way every
// run whatever thread reads first.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: out-of-bounds device read: kernel __omp_offloading_
// EXPECT-STDERR: _main_l21 at find_read_before_section.c:21 read device memory before the start of u[1:1000 - 1] (declared at find_read_before_section.c:16), mapped with map(to) at find_read_before_section.c:21: the kernel indexes it from below the section's lower bound
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-SAME-STDERR-TIMES: 3
#include <stdio.h>
#define N 1000

static double u[N], v[N];

int main(void) {
  for (int i = 0; i < N; i++)
    u[i] = i;
#pragma omp target teams distribute parallel for map(to : u[1 : N - 1]) map(from : v[0 : N - 1])
  for (int i = 1; i < N; i++)
    v[i - 1] = u[i] - u[i - 1]; /* u[0] was never mapped */
  printf("%g\n", v[0]);
  return 0;
}
