// 100 000 small mappings entered and removed in a scattered order, twice,
// under --check: each freed block is made inaccessible on its own, and each
// inaccessible range between accessible ones is a memory mapping of its
// own.  With the kernel's default limit (vm.max_map_count 65530) the
// process runs out of mappings: mprotect fails with ENOMEM, once the second
// round reuses the freed pages.  The arena then says so in a warning and
// goes on without page protection, instead of failing every later
// allocation ("cannot make the data block ... accessible", a fatal error).
// On a system with a much higher limit the run shows nothing either way.
// OMPEMU-RUN: --check
// EXPECT-EXIT: 0
// EXPECT-STDERR: ompemu: check: no findings
// EXPECT-STDOUT: sum = 36
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 2, N = 100000, STRIDE = 16, LEN = 8 };

int main(void) {
  double *pool = calloc((size_t)N * STRIDE, sizeof *pool);
  long *order = malloc(N * sizeof *order);
  if (!pool || !order)
    return 2;
  for (long i = 0; i < N; i++)
    order[i] = i;
  uint64_t rng = 88172645463325252ull;
  for (long i = N - 1; i > 0; i--) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    long j = (long)(rng % (uint64_t)(i + 1)), k = order[i];
    order[i] = order[j], order[j] = k;
  }
  for (int round = 0; round < ROUNDS; round++) {
    for (long i = 0; i < N; i++) {
      double *p = pool + i * STRIDE;
#pragma omp target enter data map(to: p[0:LEN])
    }
    /* The last round keeps one block to compute with. */
    long n = round == ROUNDS - 1 ? N - 1 : N;
    for (long i = 0; i < n; i++) {
      double *p = pool + order[i] * STRIDE;
#pragma omp target exit data map(release: p[0:LEN])
    }
  }
  double *last = pool + order[N - 1] * STRIDE, sum = 0;
  for (int k = 0; k < LEN; k++)
    last[k] = k + 1;
#pragma omp target update to(last[0:LEN])
#pragma omp target map(tofrom: sum)
  for (int k = 0; k < LEN; k++)
    sum += last[k];
#pragma omp target exit data map(release: last[0:LEN])
  printf("sum = %g\n", sum);
  free(order);
  free(pool);
  return 0;
}
