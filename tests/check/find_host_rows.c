// Host row pointers inside mapped data: the array of row pointers is
// mapped, the rows are not, so the device copy of ROWS holds host
// addresses.  In check mode they are aliases, and the first dereference is
// reported with the variable, the offset and the construct.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: check: kernel __omp_offloading_
// EXPECT-STDERR: _main_l26 at find_host_rows.c:26 dereferenced host pointer
// EXPECT-STDERR: (the pointer rows[0] at offset 0 of rows[0:n] (map to), copied at find_host_rows.c:26) + 0 (read at
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

/* Static rows: their addresses are the same every run (see
 * find_member_not_attached.c). */
static double storage[4][8];

int main(void) {
  int n = 4, m = 8;
  double **rows = malloc(n * sizeof *rows), sum = 0;
  for (int i = 0; i < n; i++) {
    rows[i] = storage[i];
    for (int j = 0; j < m; j++)
      rows[i][j] = i * m + j;
  }
#pragma omp target map(to: rows[0:n]) map(tofrom: sum)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      sum += rows[i][j];
  printf("sum = %g\n", sum);
  return 0;
}
