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
};

/* The calling thread's device context, NULL on a host thread. */
struct emu_devctx *emu_current_ctx(void);
void emu_set_ctx(struct emu_devctx *ctx);

/* Address of the device runtime's definition of NAME, NULL if it has none. */
void *devicertl_lookup(const char *name);

/* Registry of loaded images for the device runtime (added by the plugin
 * after a load, removed before an unload).  MAP_P_VAR / MAP_SIZE_VAR are the
 * device addresses of the image's __omp_offloading_fptr_map_p and
 * __omp_offloading_fptr_map_size, NULL when it does not define them.
 * Readers (translation) take no lock: they see an immutable snapshot. */
void devicertl_image_add(const struct emu_image *img, int dev, uintptr_t base,
                         size_t span, void *map_p_var, void *map_size_var);
void devicertl_image_remove(const struct emu_image *img);

/* The registered image whose span holds ADDR and its device in *DEV, or
 * NULL.  Lock-free, for the launch path and the range check of a copy
 * into an image (device globals). */
const struct emu_image *devicertl_image_at(const void *addr, int *dev);

/* The device-side routine of OMPEMU_FPTR_SET=kernel: stores TABLE and COUNT
 * (a pointer-sized integer) into the two globals at P_VAR and SIZE_VAR. */
void devicertl_fptr_assign(void *p_var, void *size_var, void *table,
                           void *count);

/* Seed declare_target_indirect.md: the device address of the indirect
 * function whose host address is FN in the table of the calling image,
 * or FN unchanged. */
EMU_EXPORT void *__kmpc_target_translate_fptr(void *fn);

#endif
