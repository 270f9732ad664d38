/* Device half of the translation benchmark: times N lookups of
 * __kmpc_target_translate_fptr over a table of N indirect functions, on the
 * device thread.  Built with `cc -shared -fPIC` with the functions and FPTR
 * entries that tests/lowered/fptr/gen.sh generates. */
#include <ompemu/abi.h>
#include <stdint.h>
#include <time.h>

__attribute__((weak)) __omp_offloading_fptr_map_ty *__omp_offloading_fptr_map_p = 0;
__attribute__((weak)) uint64_t __omp_offloading_fptr_map_size = 0;
void *__kmpc_target_translate_fptr(void *fn);

/* out[0] = ns per translation (best of 5), out[1] = translations that did
 * not change the pointer (must be 0). */
void fb_bench(void **fps, long *n, double *out) {
  double best = 1e30;
  long unchanged = 0;
  for (int rep = 0; rep < 5; rep++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < *n; i++) {
      void *p = fps[(i * 7919) % *n];
      if (__kmpc_target_translate_fptr(p) == p)
        unchanged++;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)*n;
    if (ns < best)
      best = ns;
  }
  out[0] = best;
  out[1] = (double)unchanged;
}

__tgt_offload_entry fb_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)fb_bench, "fb_bench", 0, 0, 0},
};
