// omp_target_free twice, both in a function of the program's own (not
// main): the message names the line in it, the argument as written there,
// the allocation's line in main, and (one line for both) each caller's.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: ompemu: error: omp_target_free(buf->data) at find_double_free_in_fn.c:19 (called from find_double_free_in_fn.c:29): 0x0000550000
// EXPECT-STDERR: (400 bytes of device 0 memory, allocated by omp_target_alloc at find_double_free_in_fn.c:27) was already freed at find_double_free_in_fn.c:19 (called from find_double_free_in_fn.c:28): nothing done
// RUN-TWICE-SAME-STDERR
#include <omp.h>
#include <stdio.h>

struct buffer {
  double *data;
  int dev;
};
static int released;

__attribute__((noinline)) static void release(struct buffer *buf) {
  omp_target_free(buf->data, buf->dev);
  released++; /* keeps the call from being a tail call */
}

int main(void) {
  struct buffer b;
  b.dev = omp_get_default_device();
  b.data =
      omp_target_alloc(50 * sizeof(double), b.dev);
  release(&b);
  release(&b); /* twice */
  printf("released %d\n", released);
  return 0;
}
