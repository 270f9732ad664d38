/* The emu device runtime: functions device code may call whose behaviour
 * differs from the host's (omp_is_initial_device, omp_get_device_num,
 * __kmpc_target_translate_fptr, ...), and the per-thread device context
 * they read.  The loader resolves an image's undefined symbols against
 * devicertl_lookup() before the process's global scope. */
#ifndef EMU_DEVICERTL_H
#define EMU_DEVICERTL_H

#include <stddef.h>
#include <stdint.h>

/* Functions the plugin exports (listed in plugin.map). */
#define EMU_EXPORT __attribute__((visibility("default")))

struct emu_image;

/* What a device thread is running: set by exec around each kernel, and by
 * the plugin on the calling thread while an image loads or unloads (init
 * and fini arrays). */
struct emu_devctx {
  int device;                  /* local device id */
  const struct emu_image *img; /* image of the running kernel */
  int32_t num_teams;           /* as launched; 0 = unspecified */
  int32_t thread_limit;        /* as launched; 0 = unspecified */
  uint64_t tripcount;
  /* The KernelEnvironment of a GPU-style kernel (flang's; the loader's
   * loader_kernel_env), which runs as a league of teams
   * (devicertl_flang.h); NULL for any other kernel. */
  const void *kernel_env;
  const void *entry;           /* the kernel's entry, NULL if none */
  /* The launching thread's thread-limit ICV (`target thread_limit` of
   * clang 19+), given to the thread that runs the kernel; 0: none. */
  int32_t icv_thread_limit;
};

/* The calling thread's device context, NULL on a host thread. */
struct emu_devctx *emu_current_ctx(void);
/* Called on a thread before each kernel it runs, when set (fault.c, in
 * check mode: the thread's alternate signal stack); NULL otherwise. */
extern void (*emu_kernel_thread_setup)(void);
/* Called on the thread after each kernel it ran, when set (watch.c, in
 * check mode: lifts the watches of unwritten blocks). */
extern void (*_Atomic emu_kernel_after)(void);
void emu_set_ctx(struct emu_devctx *ctx);
/* emu_set_ctx, returning the context it replaces (one TLS access less). */
struct emu_devctx *emu_swap_ctx(struct emu_devctx *ctx);
/* The calling thread's context variable, for emu_swap_ctx_in: one TLS
 * access for a launch that reads and sets it several times. */
struct emu_devctx **emu_ctx_slot(void);
/* emu_swap_ctx on SLOT, which emu_ctx_slot gave this thread. */
struct emu_devctx *emu_swap_ctx_in(struct emu_devctx **slot,
                                   struct emu_devctx *ctx);
/* The context of the kernel started last on device DEV by any thread, NULL
 * when it has ended: for the fault handler on libomp's pool threads, which
 * run a kernel's parallel regions without a context of their own. */
const struct emu_devctx *emu_last_ctx(int dev);

/* Address of the device runtime's definition of NAME, NULL if it has none. */
void *devicertl_lookup(const char *name);

/* The same for an image whose kernels are GPU-style (flang 22's; the image
 * imports __kmpc_target_init), looked up before devicertl_lookup: the
 * kernel entry and exit, parallel regions and static loops flang's kernels
 * call, and the libomp calls whose libomp behaviour does not fit how the
 * emu device runs those kernels (devicertl_flang.c).  NULL for others. */
void *devicertl_flang_lookup(const char *name);

/* Registry of loaded images for the device runtime (added by the plugin
 * after a load, removed before an unload).  MAP_P_VAR / MAP_SIZE_VAR are the
 * device addresses of the image's __omp_offloading_fptr_map_p and
 * __omp_offloading_fptr_map_size, NULL when it does not define them.
 * Readers (translation) take no lock: they see an immutable snapshot.
 * Adding returns 0, or -1 with a message when out of host memory; removing
 * cannot fail (without memory for a new snapshot the entry is retired in
 * place: no lookup finds it any more). */
int devicertl_image_add(const struct emu_image *img, int dev, uintptr_t base,
                        size_t span, void *map_p_var, void *map_size_var);
void devicertl_image_remove(const struct emu_image *img);

/* Free every snapshot of the registry (process exit, or a test's end: no
 * lookup may run afterwards). */
void devicertl_release(void);

/* The registered image whose span holds ADDR and its device in *DEV, or
 * NULL.  Lock-free, for the launch path and the range check of a copy
 * into an image (device globals). */
const struct emu_image *devicertl_image_at(const void *addr, int *dev);

/* The device-side routine of OMPEMU_FPTR_SET=kernel: stores TABLE and COUNT
 * (a pointer-sized integer) into the two globals at P_VAR and SIZE_VAR. */
void devicertl_fptr_assign(void *p_var, void *size_var, void *table,
                           void *count);

/* docs/indirect-functions.md: the device address of the indirect
 * function whose host address is FN in the table of the calling image,
 * or FN unchanged. */
EMU_EXPORT void *__kmpc_target_translate_fptr(void *fn);

#endif
