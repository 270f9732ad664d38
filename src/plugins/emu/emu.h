/* Internal state of the emu plugin shared by its files: the devices, their
 * arenas and workers, the images loaded on them, host-kind allocations and
 * the fptr table.  Not part of any interface outside src/plugins/emu/. */
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
/* Under a runtime that does not say OMPEMU_RT_DETACHES (LLVM's), a freed
 * data block is handed out again only after 16 later frees or 64 MiB
 * freed after it (or when memory runs short): LLVM 14's runtime keeps a
 * stale shadow entry for a struct mapped through a mapper and re-attaches
 * its pointer only when the pointee's new device address differs from the
 * old one (README.md, "Device model"). */
#define EMU_REUSE_DELAY_BLOCKS 16
#define EMU_REUSE_DELAY_BYTES ((size_t)64 << 20)
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

/* A device's life: OFF until first used (initialisation is tried again on
 * the next use if it fails), READY once its ranges are reserved and its
 * workers run, CLOSED once the plugin shut it down at process exit. */
enum emu_device_state {
  EMU_DEVICE_OFF,
  EMU_DEVICE_READY,
  EMU_DEVICE_CLOSED
};

struct emu_device {
  int id;
  /* LOCK protects STATE changes, the arenas' creation, IMAGES, NLOADS,
   * HOSTBLK and the fptr table; the arenas and EXEC have their own locks.
   * STATE is read without it (atomic acquire) on every call. */
  pthread_mutex_t lock;
  enum emu_device_state state;
  struct emu_arena *data, *code;
  struct exec_device *exec;
  struct emu_loaded *images; /* load order */
  int nloads;                /* images loaded so far, for labels */
  struct emu_hostblk *hostblk;
  size_t nhostblk, caphostblk;
  void *fptr_table;          /* device address, NULL if none */
  uint64_t fptr_count;
  /* Check mode: the runtime notes the device addresses copies carry
   * (__tgt_rtl_ompemu_note_pointers); emu_check_copy does not scan. */
  int runtime_notes; /* __atomic */
};

struct emu_plugin {
  int ndevices;
  size_t data_capacity;
  int check;          /* OMPEMU_CHECK: the checking mode */
  int check_exit;     /* OMPEMU_CHECK_EXIT: status of a check finding */
  int fptr_kernel; /* OMPEMU_FPTR_SET=kernel */
  int64_t requires_flags;
  uint32_t info_flag; /* LIBOMPTARGET_INFO, or set_info_flag */
  uint32_t rt_traits; /* OMPEMU_RT_*, from __tgt_rtl_ompemu_runtime */
  struct exec_options exec;
  struct emu_device dev[EMU_MAX_DEVICES];
};

/* The plugin's state; environment read on first use. */
struct emu_plugin *emu_plugin(void);
/* The plugin's state if anything used it yet, else NULL (for shutdown). */
struct emu_plugin *emu_plugin_if_started(void);

/* Device ID, initialised (arenas reserved, workers started) if needed.
 * NULL with a message if ID is out of range, initialisation fails or the
 * plugin has shut down. */
struct emu_device *emu_device_get(int32_t id, const char *op);

/* Check that [TGT, TGT+SIZE) lies in one data allocation or one loaded
 * image of D; otherwise print an error naming OP, both ranges and what
 * the device range missed.  HST may be NULL.  0 or -1. */
int emu_check_range(struct emu_device *d, const char *op, const void *tgt,
                    const void *hst, int64_t size);

/* emu_check_range for a copy that writes (TO_DEVICE) or reads the device
 * range: a data block's lazy poison is settled as the copy needs. */
int emu_check_copy(struct emu_device *d, const char *op, const void *tgt,
                   const void *hst, int64_t size, int to_device);

/* The loaded image holding ADDR, or NULL.  Caller holds D->lock. */
struct emu_loaded *emu_image_of(struct emu_device *d, const void *addr);

/* The exec stream behind AI (its Queue), NULL when AI is NULL: the call
 * is then synchronous. */
static inline struct exec_stream **emu_queue_of(__tgt_async_info *ai) {
  return ai ? (struct exec_stream **)&ai->Queue : NULL;
}

/* Give image L the device's current fptr table (fptr.c).  0, or -1 with
 * a message. */
int emu_fptr_apply(struct emu_device *d, struct emu_loaded *l);

/* Unload every image of D (plugin.c) and free its host-kind blocks
 * (data.c), at shutdown.  Caller holds D->lock.  0, or -1 if an unload
 * failed (reported). */
int emu_images_unload_all(struct emu_device *d);
void emu_hostblk_free_all(struct emu_device *d);

/* Deterministic fault injection (inject.c, OMPEMU_INJECT): the reason to
 * fail the operation of KIND being started now, or NULL to go on.  Each
 * kind counts its operations process-wide from 1. */
enum emu_inject_kind { EMU_INJECT_LAUNCH, EMU_INJECT_ALLOC };
const char *emu_inject(enum emu_inject_kind kind);
/* Replace OMPEMU_INJECT's setting by SPEC (same syntax; NULL: none) and
 * restart the counts.  Not thread-safe: for tests, before launching. */
void emu_inject_configure(const char *spec);

/* Before kernel ENTRY runs on D with arguments ARGS[i] + OFFS[i] (data.c):
 * pay the poison the data arena owes and, in check mode, remember which
 * blocks the kernel was given. */
void emu_memory_before_kernel(struct emu_device *d, const void *entry,
                              void *const *args, const ptrdiff_t *offs,
                              int32_t n);
/* Name of the kernel at ENTRY in the image that holds it, or NULL
 * (device.c; lock-free, usable from the fault handler). */
const char *emu_kernel_name(const void *entry);
/* Release the host-pointer alias range (alias.c), at process exit. */
void emu_alias_release(void);

/* Shut every device down (shutdown.c): run at process exit; safe to call
 * again.  Devices are CLOSED afterwards. */
void emu_shutdown(void);

#endif
