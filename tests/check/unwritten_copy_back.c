// map(from:) of an array the kernel writes only half of: the runtime's
// checking mode asks the plugin's ompemu_poisoned_bytes extension how many
// bytes still hold the poison when it copies back (here the program asks
// itself, through the device address); in check mode the poison is a NaN,
// so the unwritten half reads as NaN on the host, never as zeros.
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-STDOUT: poisoned 4000 of 8000 bytes
// EXPECT-STDOUT: a[0] = 0, a[999] is a NaN
// EXPECT-EXIT: 99
// EXPECT-STDERR: copied to the host: 4000 of 8000 bytes of a (declared at unwritten_copy_back.c:
#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

int main(void) {
  enum { N = 1000 };
  static double a[N];
  void *plugin = dlopen("libomptarget.rtl.emu.so", RTLD_NOW | RTLD_NOLOAD);
  int32_t (*poisoned)(int32_t, void *, int64_t, int64_t *) =
      plugin ? (int32_t(*)(int32_t, void *, int64_t, int64_t *))dlsym(
                   plugin, "__tgt_rtl_ompemu_poisoned_bytes")
             : NULL;
  if (!poisoned) {
    printf("the emu plugin is not loaded\n");
    return 1;
  }
  int64_t count = -1;
#pragma omp target data map(from: a)
  {
#pragma omp target
    for (int i = 0; i < N / 2; i++)
      a[i] = i;
    uintptr_t d = 0; /* the device address of A */
#pragma omp target map(from: d)
    d = (uintptr_t)&a[0];
    if (!d || poisoned(0, (void *)d, sizeof a, &count) != 0)
      count = -2;
  }
  printf("poisoned %ld of %zu bytes\n", (long)count, sizeof a);
  printf("a[0] = %g, a[999] is %s\n", a[0], isnan(a[999]) ? "a NaN" : "not a NaN");
  return !(count == 4000 && isnan(a[999]));
}
