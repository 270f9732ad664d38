/* declare target link: clang 14 emits no device entry for the ref
 * pointer, so position pairing (LLVM 14) runs the wrong kernel; ompemu pairs
 * by name and fills the ref pointer through the PTR_AND_OBJ map. */
#include <stdio.h>
int arr[10];
#pragma omp declare target link(arr)
int main(void) {
  for (int i = 0; i < 10; i++) arr[i] = i;
  int s = 0;
  #pragma omp target map(tofrom: arr, s)
  { for (int i = 0; i < 10; i++) { s += arr[i]; arr[i] = -i; } }
  int k = 0;
  #pragma omp target map(tofrom: k)
  { k = 42; }
  printf("s=%d arr9=%d k=%d\n", s, arr[9], k);
  return (s == 45 && arr[9] == -9 && k == 42) ? 0 : 1;
}
