/* Kernel calls of the emu device (see exec_call.h): every argument a
 * pointer, as clang's x86-64 device code expects.  Up to DIRECT_ARGS
 * arguments a direct call; more, or a flang league, through libffi, whose
 * call descriptions for fewer than EXEC_CIF_CACHE arguments are prepared
 * once per thread, larger ones per call. */
#include "config.h"
#include "exec_call.h"
#include "devicertl_flang.h"
#include "exec.h"
#include "exec_icv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define INLINE_ARGS 32 /* argument lists this long live on the stack */

static ffi_type *ptr_types[EXEC_CIF_CACHE];
static pthread_once_t types_once = PTHREAD_ONCE_INIT;

static void init_types(void) {
  for (int i = 0; i < EXEC_CIF_CACHE; i++)
    ptr_types[i] = &ffi_type_pointer;
}

/* The prepared call for N pointer arguments: cached in CIFS, or TMP with
 * its type list in *TMP_TYPES (the caller frees it).  NULL if libffi
 * cannot prepare it or there is no memory. */
static ffi_cif *cif_for(struct exec_cifs *cifs, int32_t n, ffi_cif *tmp,
                        ffi_type ***tmp_types) {
  if (n < EXEC_CIF_CACHE) {
    if (!cifs->ok[n]) {
      pthread_once(&types_once, init_types);
      if (ffi_prep_cif(&cifs->cif[n], FFI_DEFAULT_ABI, (unsigned)n,
                       &ffi_type_void, ptr_types) != FFI_OK)
        return NULL;
      cifs->ok[n] = 1;
    }
    return &cifs->cif[n];
  }
  ffi_type **t = malloc((size_t)n * sizeof *t);
  if (!t)
    return NULL;
  for (int32_t i = 0; i < n; i++)
    t[i] = &ffi_type_pointer;
  if (ffi_prep_cif(tmp, FFI_DEFAULT_ABI, (unsigned)n, &ffi_type_void, t) !=
      FFI_OK) {
    free(t);
    return NULL;
  }
  *tmp_types = t;
  return tmp;
}

/* ENTRY(VALS[0], ..., VALS[N-1]) called directly for N <= DIRECT_ARGS:
 * on x86-64 the same registers and stack slots libffi fills for pointer
 * arguments, without its per-call classification (about 150 instructions
 * for one argument).  1 if done, 0 if N is too large. */
#define DIRECT_ARGS 8
typedef void *p_;
static int call_direct(void *entry, void **v, int32_t n) {
  switch (n) {
  case 0: ((void (*)(void))entry)(); return 1;
  case 1: ((void (*)(p_))entry)(v[0]); return 1;
  case 2: ((void (*)(p_, p_))entry)(v[0], v[1]); return 1;
  case 3: ((void (*)(p_, p_, p_))entry)(v[0], v[1], v[2]); return 1;
  case 4: ((void (*)(p_, p_, p_, p_))entry)(v[0], v[1], v[2], v[3]); return 1;
  case 5:
    ((void (*)(p_, p_, p_, p_, p_))entry)(v[0], v[1], v[2], v[3], v[4]);
    return 1;
  case 6:
    ((void (*)(p_, p_, p_, p_, p_, p_))entry)(v[0], v[1], v[2], v[3], v[4],
                                              v[5]);
    return 1;
  case 7:
    ((void (*)(p_, p_, p_, p_, p_, p_, p_))entry)(v[0], v[1], v[2], v[3], v[4],
                                                  v[5], v[6]);
    return 1;
  case 8:
    ((void (*)(p_, p_, p_, p_, p_, p_, p_, p_))entry)(v[0], v[1], v[2], v[3],
                                                      v[4], v[5], v[6], v[7]);
    return 1;
  }
  return 0;
}

int exec_call_kernel(struct exec_cifs *cifs, void *entry, void **vals,
                     int32_t n, struct emu_devctx *ctx,
                     struct emu_devctx **slot, struct exec_fault *f) {
  /* Check mode's hooks (fault.c: an alternate signal stack; watch.c: the
   * reads of unwritten blocks), on both paths. */
  void (*setup)(void) =
      __atomic_load_n(&emu_kernel_thread_setup, __ATOMIC_ACQUIRE);
  if (n <= DIRECT_ARGS && (!ctx || !ctx->kernel_env)) { /* flang: libffi */
    if (!slot)
      slot = emu_ctx_slot();
    if (setup)
      setup();
    struct emu_devctx *old = emu_swap_ctx_in(slot, ctx);
    int32_t own = ctx ? exec_icv_thread_limit_enter(ctx->icv_thread_limit) : 0;
    call_direct(entry, vals, n);
    exec_icv_thread_limit_leave(own);
    void (*after)(void) = emu_kernel_after;
    if (after)
      after();
    emu_swap_ctx_in(slot, old);
    return 0;
  }
  ffi_cif tmp, *cif;
  ffi_type **tmp_types = NULL;
  cif = cif_for(cifs, n, &tmp, &tmp_types);
  if (!cif) {
    snprintf(f->why, sizeof f->why, "libffi cannot prepare a call with %d "
             "pointer arguments", n);
    return -1;
  }
  void *small[INLINE_ARGS];
  void **av = n <= INLINE_ARGS ? small : malloc((size_t)n * sizeof *av);
  if (!av) {
    free(tmp_types);
    snprintf(f->why, sizeof f->why, "out of host memory for the list of its "
             "%d arguments", n);
    return -1;
  }
  for (int32_t i = 0; i < n; i++)
    av[i] = &vals[i];
  if (!slot)
    slot = emu_ctx_slot();
  if (setup)
    setup();
  struct emu_devctx *old = emu_swap_ctx_in(slot, ctx);
  int32_t own = ctx ? exec_icv_thread_limit_enter(ctx->icv_thread_limit) : 0;
  devicertl_call_kernel(cif, entry, av, ctx); /* flang's: a league */
  exec_icv_thread_limit_leave(own);
  void (*after)(void) = emu_kernel_after;
  if (after)
    after();
  emu_swap_ctx_in(slot, old);
  if (av != small)
    free(av);
  free(tmp_types);
  return 0;
}
