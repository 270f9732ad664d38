/* The calling thread's device context (devicertl.h): what a device thread
 * is running, read by the device runtime's queries; and, per device, the
 * context of the kernel started last, for the fault handler; the set-up a
 * thread gets before each kernel it runs. */
#include "config.h"
#include "arena.h"
#include "devicertl.h"

#include <stdatomic.h>
#include <stddef.h>

static __thread struct emu_devctx *cur_ctx;
void (*emu_kernel_thread_setup)(void);
void (*_Atomic emu_kernel_after)(void);
static const struct emu_devctx *_Atomic last_ctx[EMU_MAX_DEVICES];

struct emu_devctx *emu_current_ctx(void) { return cur_ctx; }

struct emu_devctx **emu_ctx_slot(void) { return &cur_ctx; }

void emu_set_ctx(struct emu_devctx *ctx) {
  (void)emu_swap_ctx_in(&cur_ctx, ctx);
}

struct emu_devctx *emu_swap_ctx(struct emu_devctx *ctx) {
  return emu_swap_ctx_in(&cur_ctx, ctx);
}

struct emu_devctx *emu_swap_ctx_in(struct emu_devctx **slot,
                                   struct emu_devctx *ctx) {
  struct emu_devctx *old = *slot;
  *slot = ctx;
  if (ctx && ctx->entry && ctx->device >= 0 && ctx->device < EMU_MAX_DEVICES)
    atomic_store_explicit(&last_ctx[ctx->device], ctx, memory_order_relaxed);
  else if (old && old->entry && old->device >= 0 &&
           old->device < EMU_MAX_DEVICES) {
    /* Forget OLD if it is still the device's last: a load and a store,
     * not a compare-exchange (a locked instruction on every launch).  A
     * launch on another thread in between may lose its entry to the NULL
     * (the fault handler then says "device code"), but no entry outlives
     * its kernel: once another value replaced OLD, OLD is gone. */
    if (atomic_load_explicit(&last_ctx[old->device], memory_order_relaxed) ==
        old)
      atomic_store_explicit(&last_ctx[old->device], NULL,
                            memory_order_relaxed);
  }
  return old;
}

const struct emu_devctx *emu_last_ctx(int dev) {
  if (dev < 0 || dev >= EMU_MAX_DEVICES)
    return NULL;
  return atomic_load_explicit(&last_ctx[dev], memory_order_relaxed);
}
