/* Front door: what flang 22's device code imports that no libomp has
 * (docs/abi-clang22.md sections 6, 7 and 11): the GPU-style kernel entry and
 * exit, the parallel region and the static loop functions.
 *
 * flang's device link (clang-linker-wrapper, --no-undefined ... -lomptarget)
 * must find every name its kernels call; exported here at VERS1.0 it does,
 * and the image then imports them from libomptarget.  They are only names to
 * link against: the emu device's loader binds those imports to its device
 * runtime (src/plugins/emu/devicertl_flang.c), so none of these bodies runs
 * on a device.  Called anywhere else (host code, or an image loaded by some
 * other loader), each says so and aborts: running it here would silently
 * skip a kernel or a loop. */
#include "config.h"
#include "rt.h"

#include <stdint.h>

static void outside_device(const char *name) __attribute__((noreturn));

static void outside_device(const char *name) {
  rt_fatal(1, "%s called outside a device: it is a device-runtime function "
           "of flang's kernels, which only the emu device runs", name);
}

RT_EXPORT int32_t __kmpc_target_init(void *kernel_env, void *dyn_ptr) {
  (void)kernel_env;
  (void)dyn_ptr;
  outside_device(__func__);
}

RT_EXPORT void __kmpc_target_deinit(void) { outside_device(__func__); }

RT_EXPORT void __kmpc_parallel_60(ident_t *loc, int32_t gtid, int32_t if_expr,
                                  int32_t num_threads, int32_t proc_bind,
                                  void *fn, void *wrapper_fn, void **args,
                                  int64_t nargs, int32_t strict) {
  (void)loc, (void)gtid, (void)if_expr, (void)num_threads, (void)proc_bind;
  (void)fn, (void)wrapper_fn, (void)args, (void)nargs, (void)strict;
  outside_device(__func__);
}

/* The static loops, in the four index types flang uses (_4, _4u, _8, _8u):
 * worksharing (for), distribute, and the composite distribute parallel do. */
#define STATIC_LOOPS(SUFFIX, TY)                                               \
  RT_EXPORT void __kmpc_for_static_loop##SUFFIX(                               \
      ident_t *loc, void *body, void *arg, TY num_iters, TY num_threads,       \
      TY thread_chunk, uint8_t one_iteration) {                                \
    (void)loc, (void)body, (void)arg, (void)num_iters, (void)num_threads;      \
    (void)thread_chunk, (void)one_iteration;                                   \
    outside_device(__func__);                                                  \
  }                                                                            \
  RT_EXPORT void __kmpc_distribute_static_loop##SUFFIX(                        \
      ident_t *loc, void *body, void *arg, TY num_iters, TY block_chunk,       \
      uint8_t one_iteration) {                                                 \
    (void)loc, (void)body, (void)arg, (void)num_iters, (void)block_chunk;      \
    (void)one_iteration;                                                       \
    outside_device(__func__);                                                  \
  }                                                                            \
  RT_EXPORT void __kmpc_distribute_for_static_loop##SUFFIX(                    \
      ident_t *loc, void *body, void *arg, TY num_iters, TY num_threads,       \
      TY block_chunk, TY thread_chunk, uint8_t one_iteration) {                \
    (void)loc, (void)body, (void)arg, (void)num_iters, (void)num_threads;      \
    (void)block_chunk, (void)thread_chunk, (void)one_iteration;                \
    outside_device(__func__);                                                  \
  }

STATIC_LOOPS(_4, int32_t)
STATIC_LOOPS(_4u, uint32_t)
STATIC_LOOPS(_8, int64_t)
STATIC_LOOPS(_8u, uint64_t)
