/* `declare target link`: the variable's storage is NOT in the device image.
 * The device image holds only a reference pointer, big_decl_tgt_ref_ptr,
 * null until the variable is mapped; mapping it (map type 0x13,
 * PTR_AND_OBJ|TO|FROM) allocates device memory and writes its address into
 * the device's reference pointer.  (docs/declare-target.md)
 *
 * On LLVM 14's runtime with its x86_64 plugin this program runs the wrong
 * kernel or crashes: the device entry table is one entry short and paired
 * by position (docs/abi-clang14.md section 9).  ompemu pairs entries by name. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#define N 1000
double big[N];
#pragma omp declare target link(big)

int counter = 0;
#pragma omp declare target to(counter)

int main(void) {
  for (int i = 0; i < N; i++)
    big[i] = i;
  uintptr_t where = 0;
#pragma omp target map(tofrom: big) map(from: where)
  {
    for (int i = 0; i < N; i++)
      big[i] *= 2;
    where = (uintptr_t)&big[0];
    counter++;
  }
#pragma omp target update from(counter)
  printf("big lives at %p on the host and 0x%016lx on the device\n", (void *)big,
         (unsigned long)where);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += big[i] != 2.0 * i;
  printf("big[] %s, counter = %d\n", bad ? "WRONG" : "doubled on the device", counter);
  return bad || counter != 1;
}
