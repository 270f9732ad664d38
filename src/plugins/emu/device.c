/* The emu plugin's devices: environment, lazy initialisation (arenas and
 * workers), range checks of copies and print_device_info. */
#include "config.h"
#include "emu.h"
#include "watch.h"
#include "envvar.h"
#include "fault.h"
#include "loader.h"
#include "trace.h"

#include <ompemu/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct emu_plugin plugin;
static pthread_once_t plugin_once = PTHREAD_ONCE_INIT;
static int plugin_started; /* atomic: PLUGIN is initialised */

static void plugin_init(void) {
  long long n = 1;
  size_t cap;
  ompemu_env_int("OMPEMU_NUM_DEVICES", 1, 0, EMU_MAX_DEVICES, &n);
  plugin.ndevices = (int)n;
  ompemu_env_size("OMPEMU_DEVICE_MEMORY", (size_t)1 << 30, (size_t)64 << 10,
                  EMU_DATA_STRIDE, &cap);
  plugin.data_capacity = (cap + 4095) & ~(size_t)4095;
  ompemu_env_bool("OMPEMU_CHECK", 0, &plugin.check);
  long long status = EMU_CHECK_EXIT_DEFAULT;
  ompemu_env_int("OMPEMU_CHECK_EXIT", EMU_CHECK_EXIT_DEFAULT, 1, 255, &status);
  plugin.check_exit = (int)status;
  fault_set_check(plugin.check, plugin.check_exit);
  arena_set_kernel_namer(emu_kernel_name);
  arena_set_watched(watch_active);
  const char *f = getenv("OMPEMU_FPTR_SET");
  if (f && *f && strcmp(f, "copy") != 0) {
    if (strcmp(f, "kernel") == 0)
      plugin.fptr_kernel = 1;
    else
      ompemu_error("emu", "OMPEMU_FPTR_SET='%s' is neither 'copy' nor "
                   "'kernel'; using 'copy'", f);
  }
  exec_read_options(&plugin.exec);
  ompemu_env_info(&plugin.info_flag);
  for (int i = 0; i < EMU_MAX_DEVICES; i++) {
    plugin.dev[i].id = i;
    plugin.dev[i].state = EMU_DEVICE_OFF;
    pthread_mutex_init(&plugin.dev[i].lock, NULL);
  }
  __atomic_store_n(&plugin_started, 1, __ATOMIC_RELEASE);
}

struct emu_plugin *emu_plugin(void) {
  /* The flag first: pthread_once is a call through the PLT per use. */
  if (!__atomic_load_n(&plugin_started, __ATOMIC_ACQUIRE))
    pthread_once(&plugin_once, plugin_init);
  return &plugin;
}

struct emu_plugin *emu_plugin_if_started(void) {
  return __atomic_load_n(&plugin_started, __ATOMIC_ACQUIRE) ? &plugin : NULL;
}

/* Reserve D's ranges and start its workers.  Caller holds D->lock. */
static int device_init(struct emu_device *d) {
  struct emu_plugin *p = emu_plugin();
  uintptr_t db = EMU_DATA_BASE + (uintptr_t)d->id * EMU_DATA_STRIDE;
  uintptr_t cb = EMU_CODE_BASE + (uintptr_t)d->id * EMU_CODE_STRIDE;
  /* Check mode: each block takes at least two pages of the range (its
   * own and a guard), so the range is the whole window of the device. */
  size_t span = p->check ? EMU_DATA_STRIDE : p->data_capacity;
  d->data = arena_create_ex("data", d->id, db, p->data_capacity,
                            EMU_DATA_ALIGN,
                            p->check ? ARENA_CHECK : ARENA_LAZY, span);
  if (!d->data)
    return -1;
  fault_register_arena(d->data, 1);
  if (!(p->rt_traits & OMPEMU_RT_DETACHES))
    arena_set_reuse_delay(d->data, EMU_REUSE_DELAY_BLOCKS,
                          EMU_REUSE_DELAY_BYTES);
  d->code = arena_create("code", d->id, cb, EMU_CODE_CAPACITY, 4096);
  if (!d->code)
    goto fail;
  fault_register_arena(d->code, 1);
  d->exec = exec_device_create(d->id, &p->exec);
  if (!d->exec)
    goto fail;
  ompemu_trace(1, "emu", "device %d: initialised: data [" OMPEMU_PTR ", "
               OMPEMU_PTR ") capacity %zu, code [" OMPEMU_PTR ", " OMPEMU_PTR
               ")%s", d->id, OMPEMU_P(db), OMPEMU_P(db + span),
               p->data_capacity, OMPEMU_P(cb),
               OMPEMU_P(cb + EMU_CODE_CAPACITY),
               p->check ? " (check mode)" : "");
  return 0;
fail:
  if (d->code)
    fault_register_arena(d->code, 0);
  fault_register_arena(d->data, 0);
  arena_destroy(d->code);
  arena_destroy(d->data);
  d->code = d->data = NULL;
  return -1;
}

/* emu_device_get past its fast path: a bad ID, or a device not ready. */
static __attribute__((noinline)) struct emu_device *
device_get_slow(struct emu_plugin *p, int32_t id, const char *op) {
  if (id < 0 || id >= p->ndevices) {
    ompemu_error("emu", "%s: no device %d (the emu plugin has %d)", op, id,
                 p->ndevices);
    return NULL;
  }
  struct emu_device *d = &p->dev[id];
  enum emu_device_state st = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
  if (st == EMU_DEVICE_READY)
    return d;
  pthread_mutex_lock(&d->lock);
  int rc = 0;
  st = d->state;
  if (st == EMU_DEVICE_OFF) {
    rc = device_init(d);
    if (rc == 0)
      __atomic_store_n(&d->state, EMU_DEVICE_READY, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&d->lock);
  if (st == EMU_DEVICE_CLOSED) {
    ompemu_error("emu", "%s: device %d is closed (the emu plugin shut down "
                 "at process exit)", op, id);
    return NULL;
  }
  if (rc != 0) {
    ompemu_error("emu", "%s: device %d cannot be initialised", op, id);
    return NULL;
  }
  return d;
}

struct emu_device *emu_device_get(int32_t id, const char *op) {
  struct emu_plugin *p = emu_plugin();
  /* Every entry point asks: the ready case saves no registers. */
  if (id >= 0 && id < p->ndevices &&
      __atomic_load_n(&p->dev[id].state, __ATOMIC_ACQUIRE) == EMU_DEVICE_READY)
    return &p->dev[id];
  return device_get_slow(p, id, op);
}

const char *emu_kernel_name(const void *entry) {
  int dev = -1;
  const struct emu_image *img = devicertl_image_at(entry, &dev);
  if (!img)
    return NULL;
  size_t n = 0;
  const __tgt_offload_entry *e = loader_entries(img, &n);
  for (size_t i = 0; e && i < n; i++)
    if (e[i].addr == entry)
      return e[i].name;
  return NULL;
}

struct emu_loaded *emu_image_of(struct emu_device *d, const void *addr) {
  for (struct emu_loaded *l = d->images; l; l = l->next)
    if (loader_contains(l->img, addr))
      return l;
  return NULL;
}

/* What [TGT, TGT+N), outside every live data block of D, is, in WHY:
 * 1; or 0 when it is device memory all the same (an image's globals, or
 * host memory under unified shared memory). */
static int outside_blocks(struct emu_device *d, const void *tgt, size_t n,
                          char *why, size_t len) {
  if (arena_owns(d->code, tgt)) {
    /* Device globals live in the images, in the code range: the device
     * runtime's registry finds the image without D->lock. */
    int idev = -1;
    const struct emu_image *img = devicertl_image_at(tgt, &idev);
    if (img && idev == d->id &&
        (n == 0 || loader_contains(img, (char *)tgt + n - 1)))
      return 0;
  }
  if (emu_plugin()->requires_flags & OMP_REQ_UNIFIED_SHARED_MEMORY &&
      !arena_owns(d->data, tgt) && !arena_owns(d->code, tgt))
    return 0; /* host memory is device memory under USM */
  void *bs;
  size_t bz;
  if (arena_block_of(d->data, tgt, &bs, &bz) == 0)
    snprintf(why, len, "it overruns the allocation [" OMPEMU_PTR ", "
             OMPEMU_PTR ") of %zu bytes", OMPEMU_P(bs),
             OMPEMU_P((uintptr_t)bs + bz), bz);
  else if (arena_owns(d->data, tgt))
    snprintf(why, len, "no live allocation of the device's data range "
             "holds it");
  else if (arena_owns(d->code, tgt))
    snprintf(why, len, "it is in the code range but not inside one "
             "loaded image");
  else
    snprintf(why, len, "it lies outside device %d's data range ["
             OMPEMU_PTR ", " OMPEMU_PTR ")", d->id,
             OMPEMU_P(arena_base(d->data)),
             OMPEMU_P(arena_base(d->data) + arena_span(d->data)));
  return 1;
}

int emu_check_range(struct emu_device *d, const char *op, const void *tgt,
                    const void *hst, int64_t size) {
  return emu_check_copy(d, op, tgt, hst, size, -1);
}

int emu_check_copy(struct emu_device *d, const char *op, const void *tgt,
                   const void *hst, int64_t size, int to_device) {
  if (size < 0) {
    ompemu_error("emu", "device %d: %s of a negative size %ld", d->id, op,
                 (long)size);
    return -1;
  }
  size_t n = (size_t)size;
  uintptr_t t = (uintptr_t)tgt;
  if (to_device > 0 && hst && emu_plugin()->check &&
      !__atomic_load_n(&d->runtime_notes, __ATOMIC_RELAXED))
    arena_note_pointers(d->data, hst, n, t);
  /* A block watched for reads (watch.c) is settled, and its slack is
   * not read now: that would count as a read (checked when it is freed). */
  if (to_device == 0 && watch_active(t))
    to_device = -1;
  if ((to_device > 0   ? arena_write_begin(d->data, tgt, n)
       : to_device == 0 ? arena_read_begin(d->data, tgt, n)
                        : arena_check(d->data, tgt, n)) == 0)
    return 0;
  char why[200];
  if (!outside_blocks(d, tgt, n, why, sizeof why))
    return 0;
  if (hst)
    ompemu_error("emu", "device %d: %s of host [" OMPEMU_PTR ", " OMPEMU_PTR
                 ") and device [" OMPEMU_PTR ", " OMPEMU_PTR ") refused: %s",
                 d->id, op, OMPEMU_P(hst), OMPEMU_P((uintptr_t)hst + n),
                 OMPEMU_P(t), OMPEMU_P(t + n), why);
  else
    ompemu_error("emu", "device %d: %s of device [" OMPEMU_PTR ", " OMPEMU_PTR
                 ") refused: %s", d->id, op, OMPEMU_P(t), OMPEMU_P(t + n), why);
  return -1;
}

EMU_EXPORT int32_t __tgt_rtl_ompemu_not_device(int32_t id, const void *tgt,
                                               int64_t size, char *why,
                                               int64_t why_len) {
  struct emu_device *d = emu_device_get(id, "ompemu_not_device");
  if (!d || size < 0 || !why || why_len <= 0)
    return -1;
  why[0] = 0;
  if (arena_check(d->data, tgt, (size_t)size) == 0)
    return 0;
  int r = outside_blocks(d, tgt, (size_t)size, why, (size_t)why_len);
  void *bs;
  size_t bz;
  if (r == 1 && arena_block_of(d->data, tgt, &bs, &bz) == 0) {
    /* It starts inside a live block: device memory, the copy too long. */
    size_t at = (size_t)((const char *)tgt - (const char *)bs);
    size_t past = at + (size_t)size - bz;
    snprintf(why, (size_t)why_len, "the copy of %zu byte%s at offset %zu "
             "runs %zu byte%s past the end of the allocation [" OMPEMU_PTR
             ", " OMPEMU_PTR ") of %zu bytes", (size_t)size,
             size == 1 ? "" : "s", at, past, past == 1 ? "" : "s",
             OMPEMU_P(bs), OMPEMU_P((uintptr_t)bs + bz), bz);
    return 2;
  }
  return r;
}

EMU_EXPORT int32_t __tgt_rtl_ompemu_runtime(uint32_t traits) {
  emu_plugin()->rt_traits = traits;
  ompemu_trace(2, "emu", "runtime traits 0x%x: freed device memory is "
               "reused %s", traits,
               traits & OMPEMU_RT_DETACHES ? "at once" : "after a delay");
  return OFFLOAD_SUCCESS;
}

EMU_EXPORT int32_t __tgt_rtl_number_of_devices(void) {
  return emu_plugin()->ndevices;
}

EMU_EXPORT int32_t __tgt_rtl_init_device(int32_t id) {
  return emu_device_get(id, "init_device") ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

EMU_EXPORT int64_t __tgt_rtl_init_requires(int64_t flags) {
  emu_plugin()->requires_flags = flags;
  ompemu_trace(2, "emu", "requires flags 0x%lx", (unsigned long)flags);
  return flags;
}

EMU_EXPORT int32_t __tgt_rtl_supports_empty_images(void) { return 1; }

EMU_EXPORT void __tgt_rtl_set_info_flag(uint32_t flag) {
  emu_plugin()->info_flag = flag;
}

EMU_EXPORT void __tgt_rtl_print_device_info(int32_t id) {
  struct emu_device *d = emu_device_get(id, "print_device_info");
  if (!d)
    return;
  uintptr_t db = arena_base(d->data), cb = arena_base(d->code);
  printf("    emu device %d (ompemu emulated device)\n", id);
  printf("    data range:   [" OMPEMU_PTR ", " OMPEMU_PTR ")\n", OMPEMU_P(db),
         OMPEMU_P(db + arena_span(d->data)));
  printf("    code range:   [" OMPEMU_PTR ", " OMPEMU_PTR ")\n", OMPEMU_P(cb),
         OMPEMU_P(cb + arena_capacity(d->code)));
  printf("    capacity:     %zu bytes\n", arena_capacity(d->data));
  printf("    in use:       %zu bytes\n", arena_in_use(d->data));
  if (emu_plugin()->check)
    printf("    check mode:   blocks end at a guard page (8 or 16-byte "
           "alignment), poison word 0x%08X\n", EMU_CHECK_POISON_WORD);
  else
    printf("    alignment:    %d bytes, poison byte 0x%02X\n", EMU_DATA_ALIGN,
           EMU_POISON_BYTE);
  pthread_mutex_lock(&d->lock);
  int n = 0;
  for (struct emu_loaded *l = d->images; l; l = l->next)
    n++;
  printf("    images:       %d\n", n);
  for (struct emu_loaded *l = d->images; l; l = l->next)
    printf("      %s at " OMPEMU_PTR ", span %zu bytes, %td entries\n",
           loader_label(l->img), OMPEMU_P(loader_base(l->img)),
           loader_span(l->img),
           l->table.EntriesEnd - l->table.EntriesBegin);
  if (d->fptr_table)
    printf("    fptr table:   %lu entries at " OMPEMU_PTR "\n",
           (unsigned long)d->fptr_count, OMPEMU_P(d->fptr_table));
  pthread_mutex_unlock(&d->lock);
  fflush(stdout);
}

EMU_EXPORT int32_t __tgt_rtl_init_device_info(int32_t id,
                                              __tgt_device_info *info,
                                              const char **err) {
  struct emu_device *d = emu_device_get(id, "init_device_info");
  if (!d || !info) {
    if (err)
      *err = "emu: no such device";
    return OFFLOAD_FAIL;
  }
  if (!info->Context)
    info->Context = d->data;
  if (!info->Device)
    info->Device = d;
  if (err)
    *err = NULL;
  return OFFLOAD_SUCCESS;
}
