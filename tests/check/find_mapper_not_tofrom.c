// to where tofrom was needed, through a declare mapper: the mapper maps
// v.buf[0:v.len], the construct map(to: v), and the kernel writes v.buf.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: check: result thrown away: kernel 
// EXPECT-STDERR: _main_l20 (find_mapper_not_tofrom.c:20) changed 506 of 1024 bytes of v.buf[0:v.len] (declared at find_mapper_not_tofrom.c:13), mapped with map(to) at find_mapper_not_tofrom.c:20, and the target region at find_mapper_not_tofrom.c:20 removed the mapping without copying them back; map(tofrom:) or map(from:) keeps them (device 0 block 
// EXPECT-STDERR: ompemu: check: 1 finding; exit status 99
// RUN-TWICE-SAME-STDERR
#include <stdio.h>
#include <stdlib.h>

typedef struct { int len; float *buf; } vec_t;
#pragma omp declare mapper(vec_t v) map(v, v.buf[0:v.len])

int main(void) {
  vec_t v;
  v.len = 256;
  v.buf = malloc(v.len * sizeof *v.buf);
  for (int i = 0; i < v.len; i++) v.buf[i] = 1;
#pragma omp target map(to: v)
  for (int i = 0; i < v.len; i++)
    v.buf[i] += i;
  printf("buf[5] = %g\n", v.buf[5]);
  free(v.buf);
  return 0;
}
