// Sections with a lower bound whose kernels stay inside them: the
// kernel's pointer is the section's base, before the device block, and the
// checker watches the block's slack for reads (check_slack.c) but must
// find nothing: a stencil over the interior of an array, rows of a 2-D
// array, a pointer section, a repeated launch, a section of an array
// already mapped whole, and a read-modify-write of the section.
// OMPEMU-RUN: --check
// EXPECT-STDOUT: ok 500 1007 7 50 2
// EXPECT-STDERR: ompemu: check: no findings
#include <stdio.h>
#include <stdlib.h>
#define N 1000
#define R 8
#define C 16

static double u[N], v[N], m[R][C];

int main(void) {
  int *p = malloc(100 * sizeof *p);
  for (int i = 0; i < N; i++)
    u[i] = i, v[i] = 0;
  for (int i = 0; i < 100; i++)
    p[i] = i;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      m[i][j] = i;

  /* interior stencil: reads u[i-1..i+1] for i in [2, N-2) */
#pragma omp target teams distribute parallel for map(to : u[1 : N - 2]) map(tofrom : v[2 : N - 4])
  for (int i = 2; i < N - 2; i++)
    v[i] = u[i - 1] + u[i + 1] - u[i];

  /* rows 3 and 4 of M */
  double rows = 0;
#pragma omp target map(to : m[3 : 2][0 : C]) map(tofrom : rows)
  for (int i = 3; i < 5; i++)
    for (int j = 0; j < C; j++)
      rows += m[i][j] / C;

  /* a pointer section, five launches */
  int s = 0;
  for (int k = 0; k < 5; k++) {
#pragma omp target map(to : p[10 : 5]) map(tofrom : s)
    for (int i = 10; i < 15; i++)
      s += p[i] - 10;
  }

  /* a section of an array mapped whole: the base is inside the block */
#pragma omp target data map(tofrom : u)
  {
#pragma omp target map(tofrom : u[500 : 10])
    for (int i = 500; i < 510; i++)
      u[i] += 1;
  }

  /* read-modify-write of the section */
#pragma omp target map(tofrom : p[50 : 10])
  for (int i = 50; i < 60; i++)
    p[i] *= 2;

  printf("ok %g %g %g %d %d\n", v[500], u[500] + u[505], rows, s, p[51] - 100);
  free(p);
  return 0;
}
