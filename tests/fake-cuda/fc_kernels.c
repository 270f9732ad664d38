/* Device code for the cuda plugin's unit tests: a host shared object the
 * tests patch into an EM_CUDA image for the driver test double.  Kernels
 * take every argument as a pointer-sized value, as clang's kernels do. */
#include <stdint.h>

extern void *__kmpc_target_translate_fptr(void *);

int dev_counter = 5;
double dev_array[16];
int *dev_link_decl_tgt_ref_ptr; /* a `declare target link` pointer */

/* The device globals of docs/indirect-functions.md (weak, as the FE would
 * emit them). */
__attribute__((weak)) struct { int64_t h, t; } *__omp_offloading_fptr_map_p;
__attribute__((weak)) uint64_t __omp_offloading_fptr_map_size;

void k_store(int *out, intptr_t v) { *out = (int)v; }

void k_sum(long *out, const int *in, intptr_t n) {
  long s = 0;
  for (intptr_t i = 0; i < n; i++)
    s += in[i];
  *out = s;
}

void k_read_counter(int *out) { *out = dev_counter; }
/* clang marks generic-mode kernels so (1); the others are SPMD (absent). */
unsigned char k_read_counter_exec_mode = 1;
/* LLVM 14's device environment: {debug, num_devices, device_num, dyn mem}. */
struct { int32_t debug; uint32_t num_devices, device_num, dyn; }
    omptarget_device_environment;

void k_env(uint32_t *out) {
  out[0] = omptarget_device_environment.num_devices;
  out[1] = omptarget_device_environment.device_num;
}

void k_bump_counter(void) { dev_counter += 100; }

int dev_twice(int x) { return 2 * x; }

void k_call_fptr(int *out, void *fp, intptr_t x) {
  int (*f)(int) = (int (*)(int))__kmpc_target_translate_fptr(fp);
  *out = f(x);
}

void k_fptr_globals(int64_t *out) {
  out[0] = (int64_t)(intptr_t)__omp_offloading_fptr_map_p;
  out[1] = (int64_t)__omp_offloading_fptr_map_size;
}

void k_many(long *out, intptr_t a, intptr_t b, intptr_t c, intptr_t d,
            intptr_t e, intptr_t f, intptr_t g, intptr_t h) {
  *out = a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h;
}

/* More arguments than the plugin's launch keeps on its stack: sum of i*a_i. */
void k_wide(long *out, intptr_t a1, intptr_t a2, intptr_t a3, intptr_t a4,
            intptr_t a5, intptr_t a6, intptr_t a7, intptr_t a8, intptr_t a9,
            intptr_t a10, intptr_t a11, intptr_t a12, intptr_t a13,
            intptr_t a14, intptr_t a15, intptr_t a16, intptr_t a17,
            intptr_t a18, intptr_t a19, intptr_t a20) {
  intptr_t a[20] = {a1,  a2,  a3,  a4,  a5,  a6,  a7,  a8,  a9,  a10,
                    a11, a12, a13, a14, a15, a16, a17, a18, a19, a20};
  long s = 0;
  for (int i = 0; i < 20; i++)
    s += (i + 1) * a[i];
  *out = s;
}
