// Device code that recurses without end runs off its thread's stack.  In
// check mode the thread has an alternate signal stack, so the fault is
// reported as a stack overflow in the kernel instead of killing the
// process without a word.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 99
// EXPECT-STDERR: emu: error: kernel __omp_offloading_
// EXPECT-STDERR: _main_l27 at find_stack_overflow.c:27: stack overflow: the write at
// EXPECT-STDERR: is just below the thread's stack, which device code has used up
// EXPECT-STDERR: ompemu: check: stopped at a fault in device code; exit status 99
#include <stdio.h>

#pragma omp declare target
int depth_reached;
/* Each level keeps a buffer live across the call, so the compiler can
 * turn nothing into a loop. */
int descend(int level) {
  volatile char frame[256];
  frame[level & 255] = (char)level;
  depth_reached = level;
  return descend(level + 1) + frame[(level * 7) & 255];
}
#pragma omp end declare target

int main(void) {
  int r = 0;
#pragma omp target map(from: r)
  r = descend(0);
  printf("r = %d\n", r);
  return 0;
}
