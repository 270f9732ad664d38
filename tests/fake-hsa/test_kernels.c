/* Device code of the hsa plugin's unit tests, built as a fake gfx906 code
 * object (mk-code-object.sh).  Kernels are plain functions taking the
 * pointer-sized kernel arguments. */
#include <stdint.h>

struct fptr_row {
  int64_t host_ptr, tgt_ptr;
};
struct fptr_row *__omp_offloading_fptr_map_p = 0;
uint64_t __omp_offloading_fptr_map_size = 0;
void *__kmpc_target_translate_fptr(void *fn);

int counter = 5;

void k_add(int *a, const int *b, long n) {
  for (long i = 0; i < n; i++)
    a[i] += b[i];
}

void k_inc_counter(int *out) { *out = ++counter; }
/* What clang 14 emits next to a kernel: generic (non-SPMD) mode, and a
 * default work-group size. */
const char k_inc_counter_exec_mode = 1;
const unsigned short k_inc_counter_wg_size = 128;

int dev_twice(int x) { return 2 * x; }

/* FN is a host function pointer; the device calls its device version. */
void k_call_fptr(void *fn, int *out, long *translated) {
  int (*f)(int) = (int (*)(int))__kmpc_target_translate_fptr(fn);
  *translated = (long)(f != fn);
  *out = f == fn ? -1 : f(21);
}

void k_sum10(long *out, long a, long b, long c, long d, long e, long f,
             long g, long h, long i) {
  *out = a + b + c + d + e + f + g + h + i;
}
