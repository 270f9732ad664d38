/* Internal state of the emu plugin shared by its files: the devices, their
 * arenas and workers, the images loaded on them, host-kind allocations and
 * the fptr table.  Not part of any interface outside emu-device/. */
#ifndef EMU_EMU_H
#define EMU_EMU_H

#include <ompemu/abi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "devicertl.h"
#include "exec.h"

#define EMU_CODE_CAPACITY ((size_t)256 << 20)
#define EMU_INFO_PLUGIN_KERNEL 0x10 /* LIBOMPTARGET_INFO bit */

/* One image loaded on one device. */
struct emu_loaded {
  struct emu_loaded *next;
  const __tgt_device_image *host_img; /* the runtime's, to match unregister */
  struct emu_image *img;
  __tgt_target_table table;           /* by name, in host entry order */
  void *fptr_p_var, *fptr_size_var;   /* NULL when the image lacks them */
};

/* A TARGET_ALLOC_HOST block (ordinary host memory). */
struct emu_hostblk {
  void *p;
  size_t size;
};

struct emu_device {
  int id;
  /* LOCK protects INITIALIZED, the arenas' creation, IMAGES, NLOADS, HOSTBLK
   * and the fptr table; the arenas and EXEC have their own locks. */
  pthread_mutex_t lock;
  int initialized;
  struct emu_arena *data, *code;
  struct exec_device *exec;
  struct emu_loaded *images; /* load order */
  int nloads;                /* images loaded so far, for labels */
  struct emu_hostblk *hostblk;
  size_t nhostblk, caphostblk;
  void *fptr_table;          /* device address, NULL if none */
  uint64_t fptr_count;
};

struct emu_plugin {
  int ndevices;
  size_t data_capacity;
  int fptr_kernel; /* OMPEMU_FPTR_SET=kernel */
  int64_t requires_flags;
  uint32_t info_flag; /* LIBOMPTARGET_INFO, or set_info_flag */
  struct exec_options exec;
  struct emu_device dev[EMU_MAX_DEVICES];
};

/* The plugin's state; environment read on first use. */
struct emu_plugin *emu_plugin(void);

/* Device ID, initialised (arenas reserved, workers started) if needed.
 * NULL with a message if ID is out of range or initialisation fails. */
struct emu_device *emu_device_get(int32_t id, const char *op);

/* Check that [TGT, TGT+SIZE) lies in one data allocation or one loaded
 * image of D; otherwise print an error naming OP, both ranges and what
 * the device range missed.  HST may be NULL.  0 or -1. */
int emu_check_range(struct emu_device *d, const char *op, const void *tgt,
                    const void *hst, int64_t size);

/* The loaded image holding ADDR, or NULL.  Caller holds D->lock. */
struct emu_loaded *emu_image_of(struct emu_device *d, const void *addr);

/* The exec stream behind AI (its Queue), NULL when AI is NULL: the call
 * is then synchronous. */
static inline struct exec_stream **emu_queue_of(__tgt_async_info *ai) {
  return ai ? (struct exec_stream **)&ai->Queue : NULL;
}

/* Give IMAGE the device's current fptr table (plugin_fptr.c). */
int emu_fptr_apply(struct emu_device *d, struct emu_loaded *l);

#endif
