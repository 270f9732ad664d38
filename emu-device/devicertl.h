/* The emu device runtime: functions device code may call whose behaviour
 * differs from the host's (omp_is_initial_device, omp_get_device_num,
 * __kmpc_target_translate_fptr, ...), and the per-thread device context
 * they read.  The loader resolves an image's undefined symbols against
 * devicertl_lookup() before the process's global scope. */
#ifndef EMU_DEVICERTL_H
#define EMU_DEVICERTL_H

#include <stdint.h>

/* Functions the plugin exports (listed in plugin.map). */
#define EMU_EXPORT __attribute__((visibility("default")))

struct emu_image;

/* What a device thread is running: set by exec around each kernel (and
 * around ctors/dtors and init arrays). */
struct emu_devctx {
  int device;                  /* local device id */
  const struct emu_image *img; /* image of the running kernel */
  int32_t num_teams;           /* as launched; 0 = unspecified */
  int32_t thread_limit;        /* as launched; 0 = unspecified */
  uint64_t tripcount;
};

/* The calling thread's device context, NULL on a host thread. */
struct emu_devctx *emu_current_ctx(void);
void emu_set_ctx(struct emu_devctx *ctx);

/* Address of the device runtime's definition of NAME, NULL if it has none. */
void *devicertl_lookup(const char *name);

#endif
