// requires unified_shared_memory with a declare target variable: clang
// 19/22 pass the requires clause as an offload entry (no
// __tgt_register_requires call; 19: bits in the 32-byte entry's reserved
// word, 22: a ".requires" entry with the bits in Data), and under USM the
// variable becomes a reference pointer the device reaches the host copy
// through.
#include "check.h"

#pragma omp requires unified_shared_memory

int counter = 5;
#pragma omp declare target(counter)

int main(void) {
#pragma omp target
  counter += 1;
  CHECK(counter == 6, "host sees counter = %d after the region", counter);
  counter = 40;
  int seen = 0;
#pragma omp target map(from: seen)
  seen = counter + 2;
  CHECK(seen == 42, "device saw counter + 2 = %d", seen);
  int *heap = malloc(4 * sizeof *heap);
  for (int i = 0; i < 4; i++) heap[i] = i;
#pragma omp target
  for (int i = 0; i < 4; i++) heap[i] += counter;
  CHECK(heap[0] == 40 && heap[3] == 43, "heap = %d .. %d", heap[0], heap[3]);
  free(heap);
  return tc_done();
}
