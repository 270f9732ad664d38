/* Calling a kernel with N pointer arguments (exec_call.c): directly for up
 * to 8, else (and for flang's leagues) through libffi, for which each
 * thread that calls kernels keeps prepared call descriptions for the usual
 * argument counts.  Only the thread that owns a cache uses it. */
#ifndef EMU_EXEC_CALL_H
#define EMU_EXEC_CALL_H

#include <ffi.h>
#include <stdint.h>

#include "devicertl.h"

#define EXEC_CIF_CACHE 64

struct exec_cifs {
  ffi_cif cif[EXEC_CIF_CACHE];
  unsigned char ok[EXEC_CIF_CACHE];
};

struct exec_fault;

/* ENTRY(VALS[0], ..., VALS[N-1]) with CTX as the thread's device context
 * (SLOT: the thread's emu_ctx_slot, or NULL to look it up): 0, or -1 with
 * the reason in F->why when the call cannot be made (libffi cannot
 * prepare it, no memory for its argument list). */
int exec_call_kernel(struct exec_cifs *cifs, void *entry, void **vals,
                     int32_t n, struct emu_devctx *ctx,
                     struct emu_devctx **slot, struct exec_fault *f);

#endif
