/* Device half of indirect.c, lowered by hand as docs/indirect-functions.md
 * ("Sample implementation") describes.
 * Build: cc -shared -fPIC device.c functions.c */
#include <ompemu/abi.h>
#include <stdint.h>

int square(int);
int cube(int);

/* The table the plugin fills in (weak: an image without them is fine). */
__attribute__((weak)) __omp_offloading_fptr_map_ty *__omp_offloading_fptr_map_p = 0;
__attribute__((weak)) uint64_t __omp_offloading_fptr_map_size = 0;

/* Provided by the device runtime. */
void *__kmpc_target_translate_fptr(void *fn);

/* The outlined target region.  The front end rewrote `ops[i](3)` into a
 * call through the translated pointer. */
void __omp_offloading_indirect_main(int (**ops)(int), int *out) {
  for (int i = 0; i < 2; i++) {
    int (*dev_fn)(int) = (int (*)(int))__kmpc_target_translate_fptr((void *)ops[i]);
    out[i] = dev_fn(3);
  }
}

/* Device entries: the kernel, and one FPTR (0x08) entry per indirect
 * function, with the device addresses. */
__tgt_offload_entry device_entries[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)__omp_offloading_indirect_main, "__omp_offloading_indirect_main", 0, 0, 0},
    {(void *)square, "square", 0, OMP_DECLARE_TARGET_FPTR, 0},
    {(void *)cube, "cube", 0, OMP_DECLARE_TARGET_FPTR, 0},
};
