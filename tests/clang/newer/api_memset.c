// omp_target_memset and omp_target_memset_async (OpenMP 5.2, declared by
// LLVM 19+'s omp.h): fill device memory, blocking and as a task.
// MIN-CLANG: 19
#include "check.h"
#include <omp.h>

#define N 100

int main(void) {
  int dev = omp_get_default_device();
  int host = omp_get_initial_device();
  unsigned char *d = omp_target_alloc(N, dev);
  CHECK(d != NULL, "omp_target_alloc");
  if (!d)
    return tc_done();
  void *r = omp_target_memset(d, 0x5a, N, dev);
  CHECK(r == d, "omp_target_memset returned %p for %p", r, (void *)d);
  unsigned char back[N];
  memset(back, 0, N);
  omp_target_memcpy(back, d, N, 0, 0, host, dev);
  CHECK(back[0] == 0x5a && back[N - 1] == 0x5a, "after memset: %#x .. %#x", back[0], back[N - 1]);

  r = omp_target_memset_async(d + 10, 0x11, 20, dev, 0, NULL);
  CHECK(r == d + 10, "omp_target_memset_async returned %p", r);
#pragma omp taskwait
  omp_target_memcpy(back, d, N, 0, 0, host, dev);
  CHECK(back[9] == 0x5a && back[10] == 0x11 && back[29] == 0x11 && back[30] == 0x5a,
        "after async memset: %#x %#x %#x %#x", back[9], back[10], back[29], back[30]);

  /* memset of a mapped array, seen by a kernel */
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int sum = -1;
#pragma omp target data map(tofrom: a)
  {
    omp_target_memset(omp_get_mapped_ptr(a, dev), 0, sizeof a, dev);
#pragma omp target map(from: sum)
    {
      sum = 0;
      for (int i = 0; i < 8; i++) sum += a[i];
    }
  }
  CHECK(sum == 0 && a[7] == 0, "sum %d, a[7] %d after memset of the mapped copy", sum, a[7]);
  omp_target_free(d, dev);
  return tc_done();
}
