/* Device half of the declare-target-indirect tests, lowered by hand as
 * docs/indirect-functions.md ("Sample implementation") describes: the weak
 * table globals that the plugin fills in, and kernels whose indirect calls
 * go through __kmpc_target_translate_fptr.  Built with `cc -shared -fPIC`.
 * KP is the kernel name prefix (one per library). */
#include <ompemu/abi.h>
#include <pthread.h>
#include <stdint.h>

__attribute__((weak)) __omp_offloading_fptr_map_ty *__omp_offloading_fptr_map_p = 0;
__attribute__((weak)) uint64_t __omp_offloading_fptr_map_size = 0;
void *__kmpc_target_translate_fptr(void *fn);

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define K(name) CAT(KP, name)

/* out[i] = translate(fps[i]) */
void K(translate)(void **fps, void **out, long *n) {
  for (long i = 0; i < *n; i++)
    out[i] = __kmpc_target_translate_fptr(fps[i]);
}

/* res[i] = (translated fps[i])(i): the rewritten indirect call. */
void K(call)(void **fps, int *res, long *n) {
  for (long i = 0; i < *n; i++) {
    int (*f)(int) = (int (*)(int))__kmpc_target_translate_fptr(fps[i]);
    res[i] = f((int)i);
  }
}

/* info = {table address, table size, 1 if sorted by host_ptr}. */
void K(table)(int64_t *info) {
  info[0] = (int64_t)(intptr_t)__omp_offloading_fptr_map_p;
  info[1] = (int64_t)__omp_offloading_fptr_map_size;
  int sorted = 1;
  for (uint64_t i = 1; i < __omp_offloading_fptr_map_size; i++)
    if (__omp_offloading_fptr_map_p[i - 1].host_ptr >= __omp_offloading_fptr_map_p[i].host_ptr)
      sorted = 0;
  info[2] = sorted;
}

struct job {
  void **fps, **out;
  long n;
};

static void *translate_all(void *arg) {
  struct job *j = arg;
  for (int rep = 0; rep < 50; rep++)
    for (long i = 0; i < j->n; i++)
      j->out[i] = __kmpc_target_translate_fptr(j->fps[i]);
  return 0;
}

/* Eight device threads translate every pointer at once; out has 8*n slots. */
void K(threads)(void **fps, void **out, long *n) {
  pthread_t t[8];
  struct job jobs[8];
  for (int k = 0; k < 8; k++) {
    jobs[k] = (struct job){fps, out + k * *n, *n};
    pthread_create(&t[k], 0, translate_all, &jobs[k]);
  }
  for (int k = 0; k < 8; k++)
    pthread_join(t[k], 0);
}

#define STR2(x) #x
#define STR(x) STR2(x)
__tgt_offload_entry K(kernel_entries)[] __attribute__((section("omp_offloading_entries"), used, aligned(1))) = {
    {(void *)K(translate), STR(KP) "translate", 0, 0, 0},
    {(void *)K(call), STR(KP) "call", 0, 0, 0},
    {(void *)K(table), STR(KP) "table", 0, 0, 0},
    {(void *)K(threads), STR(KP) "threads", 0, 0, 0},
};
