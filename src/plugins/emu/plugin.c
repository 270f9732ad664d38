/* The emu plugin's image and execution entry points: binary checks, image
 * load and unload with the by-name entries table, kernel launches, queues
 * (async info) and events.  Memory is in data.c, devices in device.c, the
 * fptr table in fptr.c.  A kernel that cannot start fails its launch
 * (synchronous) or the synchronize of its queue (asynchronous), with one
 * message naming the kernel and the device. */
#include "config.h"
#include "emu.h"
#include "exec_icv.h"
#include "loader.h"
#include "trace.h"

#include <ompemu/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

EMU_EXPORT int32_t __tgt_rtl_is_valid_binary(__tgt_device_image *image) {
  if (!image || !image->ImageStart || image->ImageEnd <= image->ImageStart)
    return 0;
  char why[256] = "";
  size_t size = (size_t)((char *)image->ImageEnd - (char *)image->ImageStart);
  int ok = loader_check(image->ImageStart, size, why, sizeof why);
  if (!ok)
    ompemu_trace(1, "emu", "image " OMPEMU_PTR " (%zu bytes) is not for the "
                 "emu device: %s", OMPEMU_P(image->ImageStart), size, why);
  return ok ? 1 : 0;
}

/* Load and unload run on the calling thread, with the device context set
 * on it meanwhile so init and fini arrays see the device.  Not on a worker:
 * the caller may hold the dynamic linker's lock (a library's constructor or
 * destructor registering or unregistering offload code), and the loader
 * calls dlopen/dlclose, which would wait for that lock on another thread
 * forever. */
static struct emu_image *load_here(struct emu_device *d, const void *start,
                                   size_t size, const char *label) {
  struct emu_devctx ctx = {d->id, NULL, 0, 0, 0};
  struct emu_devctx *old = emu_current_ctx();
  emu_set_ctx(&ctx);
  struct emu_image *img = loader_load(d->id, d->code, start, size, label);
  emu_set_ctx(old);
  return img;
}

static int unload_here(struct emu_device *d, struct emu_image *img) {
  struct emu_devctx ctx = {d->id, img, 0, 0, 0};
  struct emu_devctx *old = emu_current_ctx();
  emu_set_ctx(&ctx);
  int rc = loader_unload(img);
  emu_set_ctx(old);
  return rc;
}

/* Check mode: a kernel can leave a device address in an image's data
 * for a later kernel (arena_holders.c). */
struct reach_ctx {
  struct emu_device *d;
  const struct emu_image *img;
};

static void reach_add(void *arg, uintptr_t lo, size_t len) {
  struct reach_ctx *c = arg;
  arena_reach_add(c->d->data, c->img, lo, len);
}

/* The device table of L: one row per host entry of HOST_IMG, in the host
 * order, each resolved by name in the loaded image. */
static int build_table(struct emu_device *d, struct emu_loaded *l,
                       const __tgt_device_image *host_img) {
  size_t n = (size_t)(host_img->EntriesEnd - host_img->EntriesBegin);
  __tgt_offload_entry *t = calloc(n ? n : 1, sizeof *t);
  if (!t)
    return -1;
  for (size_t i = 0; i < n; i++) {
    const __tgt_offload_entry *h = &host_img->EntriesBegin[i];
    size_t sz = 0;
    t[i].addr = h->name ? loader_symbol(l->img, h->name, &sz) : NULL;
    t[i].name = h->name;
    t[i].size = h->size;
    t[i].flags = h->flags;
    if (t[i].addr)
      ompemu_trace(2, "emu", "device %d: entry %zu %s (flags 0x%x, size %zu) "
                   "at " OMPEMU_PTR, d->id, i, h->name ? h->name : "(null)",
                   (unsigned)h->flags, h->size, OMPEMU_P(t[i].addr));
    else
      ompemu_trace(1, "emu", "device %d: entry %zu %s (flags 0x%x): no such "
                   "symbol in image %s", d->id, i,
                   h->name ? h->name : "(null)", (unsigned)h->flags,
                   loader_label(l->img));
  }
  l->table.EntriesBegin = t;
  l->table.EntriesEnd = t + n;
  return 0;
}

EMU_EXPORT __tgt_target_table *__tgt_rtl_load_binary(int32_t id,
                                                     __tgt_device_image *hi) {
  struct emu_device *d = emu_device_get(id, "load_binary");
  if (!d)
    return NULL;
  if (!hi || !hi->ImageStart || hi->ImageEnd <= hi->ImageStart) {
    ompemu_error("emu", "device %d: load_binary of an empty image (" OMPEMU_PTR
                 ")", id, OMPEMU_P(hi));
    return NULL;
  }
  size_t size = (size_t)((char *)hi->ImageEnd - (char *)hi->ImageStart);
  char label[64];
  pthread_mutex_lock(&d->lock);
  /* A label that is the same in every run (no host address in it). */
  snprintf(label, sizeof label, "dev%d.img%d", id, d->nloads++);
  struct emu_image *img = load_here(d, hi->ImageStart, size, label);
  if (!img) { /* the loader said why */
    pthread_mutex_unlock(&d->lock);
    return NULL;
  }
  const char *why = NULL; /* a failure not reported yet */
  int failed = 0;
  struct emu_loaded *l = calloc(1, sizeof *l);
  if (!l) {
    why = "out of host memory";
  } else {
    l->img = img;
    l->host_img = hi;
    if (build_table(d, l, hi) != 0)
      why = "out of host memory for its entries table";
  }
  if (!why) {
    l->fptr_p_var = loader_symbol(img, "__omp_offloading_fptr_map_p", NULL);
    l->fptr_size_var =
        loader_symbol(img, "__omp_offloading_fptr_map_size", NULL);
    if (!l->fptr_size_var)
      l->fptr_p_var = NULL; /* both or neither */
    if (devicertl_image_add(img, id, loader_base(img), loader_span(img),
                            l->fptr_p_var, l->fptr_size_var) != 0)
      why = "out of host memory registering it with the device runtime";
    else if (d->fptr_table && emu_fptr_apply(d, l) != 0) {
      devicertl_image_remove(img); /* emu_fptr_apply said why */
      failed = 1;
    }
  }
  if (why || failed) {
    if (l)
      free(l->table.EntriesBegin);
    free(l);
    unload_here(d, img);
    pthread_mutex_unlock(&d->lock);
    if (why)
      ompemu_error("emu", "device %d: cannot load image %s (" OMPEMU_PTR
                   ", %zu bytes): %s", id, label, OMPEMU_P(hi->ImageStart),
                   size, why);
    return NULL;
  }
  struct emu_loaded **tail = &d->images;
  while (*tail)
    tail = &(*tail)->next;
  *tail = l;
  if (emu_plugin()->check) {
    struct reach_ctx c = {d, img};
    loader_writable_runs(img, reach_add, &c);
  }
  ompemu_trace(1, "emu", "device %d: image %s (%zu bytes) loaded at " OMPEMU_PTR
               ", span %zu, %td entries", id, label, size,
               OMPEMU_P(loader_base(img)), loader_span(img),
               l->table.EntriesEnd - l->table.EntriesBegin);
  pthread_mutex_unlock(&d->lock);
  return &l->table;
}

/* Unload L (removed from the list by the caller, who holds D->lock).  0,
 * or -1 if the loader could not release it cleanly (it said why). */
static int unload(struct emu_device *d, struct emu_loaded *l) {
  ompemu_trace(1, "emu", "device %d: unloading image %s at " OMPEMU_PTR, d->id,
               loader_label(l->img), OMPEMU_P(loader_base(l->img)));
  devicertl_image_remove(l->img);
  arena_reach_drop(d->data, l->img);
  int rc = unload_here(d, l->img);
  free(l->table.EntriesBegin);
  free(l);
  return rc;
}

int emu_images_unload_all(struct emu_device *d) {
  int rc = 0;
  while (d->images) {
    struct emu_loaded *l = d->images;
    d->images = l->next;
    if (unload(d, l) != 0)
      rc = -1;
  }
  return rc;
}

EMU_EXPORT int32_t __tgt_rtl_register_lib(__tgt_bin_desc *desc) {
  return OFFLOAD_SUCCESS;
}

EMU_EXPORT int32_t __tgt_rtl_unregister_lib(__tgt_bin_desc *desc) {
  if (!desc) {
    ompemu_error("emu", "unregister_lib of a NULL descriptor");
    return OFFLOAD_FAIL;
  }
  struct emu_plugin *p = emu_plugin();
  const __tgt_device_image *b = desc->DeviceImages;
  const __tgt_device_image *e = b ? b + desc->NumDeviceImages : b;
  int rc = 0;
  for (int i = 0; i < p->ndevices; i++) {
    struct emu_device *d = &p->dev[i];
    pthread_mutex_lock(&d->lock);
    if (d->state == EMU_DEVICE_READY)
      for (struct emu_loaded **pl = &d->images; *pl;) {
        struct emu_loaded *l = *pl;
        if (l->host_img >= b && l->host_img < e) {
          *pl = l->next;
          if (unload(d, l) != 0)
            rc = -1;
        } else {
          pl = &l->next;
        }
      }
    pthread_mutex_unlock(&d->lock);
  }
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

/* Name of the entry at ENTRY in L's table, for traces. */
static const char *entry_name(const struct emu_loaded *l, const void *entry) {
  for (const __tgt_offload_entry *e = l->table.EntriesBegin;
       e < l->table.EntriesEnd; e++)
    if (e->addr == entry)
      return e->name;
  return "?";
}

/* Report F, a kernel of D that could not start: one message, with the
 * kernel's name when an image of D still holds it. */
static void report_fault(struct emu_device *d, const struct exec_fault *f) {
  char name[256] = "?";
  pthread_mutex_lock(&d->lock);
  struct emu_loaded *l = emu_image_of(d, f->entry);
  if (l)
    snprintf(name, sizeof name, "%s", entry_name(l, f->entry));
  pthread_mutex_unlock(&d->lock);
  ompemu_error("emu", "device %d: kernel %s (" OMPEMU_PTR ") could not start: "
               "%s", d->id, name, OMPEMU_P(f->entry), f->why);
}

static int32_t launch(int32_t id, void *entry, void **args, ptrdiff_t *offs,
                      int32_t n, int32_t teams, int32_t limit, uint64_t trip,
                      __tgt_async_info *ai) {
  struct emu_device *d = emu_device_get(id, "run_target_region");
  if (!d)
    return OFFLOAD_FAIL;
  int idev = -1;
  const struct emu_image *img = entry ? devicertl_image_at(entry, &idev) : NULL;
  if (!img || idev != id) {
    ompemu_error("emu", "device %d: kernel entry " OMPEMU_PTR " is not in any "
                 "image loaded on the device", id, OMPEMU_P(entry));
    return OFFLOAD_FAIL;
  }
  unsigned needs = loader_kernel_needs(img, entry);
  struct emu_devctx ctx = {id, img, teams, limit, trip,
                           loader_kernel_env(img, entry), entry,
                           needs & EXEC_USES_LIBOMP ? exec_icv_thread_limit()
                                                    : 0};
  if (OMPEMU_TRACE_ON(2) ||
      (emu_plugin()->info_flag & EMU_INFO_PLUGIN_KERNEL)) {
    pthread_mutex_lock(&d->lock);
    struct emu_loaded *l = emu_image_of(d, entry);
    const char *name = l ? entry_name(l, entry) : "?";
    ompemu_trace(2, "emu", "device %d: launch %s at " OMPEMU_PTR " with %d "
                 "args, teams %d, thread_limit %d, tripcount %lu%s", id, name,
                 OMPEMU_P(entry), n, teams, limit, (unsigned long)trip,
                 ai ? " (async)" : "");
    if (emu_plugin()->info_flag & EMU_INFO_PLUGIN_KERNEL)
      ompemu_report(OMPEMU_NOTE, "", "Libomptarget device %d info: Launching "
                    "kernel %s with %d teams and %d threads on an emu device "
                    "worker", id, name, teams, limit);
    pthread_mutex_unlock(&d->lock);
  }
  if (n < 0 || (n > 0 && !args)) {
    ompemu_error("emu", "device %d: launch of " OMPEMU_PTR " with bad "
                 "arguments (%d at " OMPEMU_PTR ")", id, OMPEMU_P(entry), n,
                 OMPEMU_P(args));
    return OFFLOAD_FAIL;
  }
  emu_memory_before_kernel(d, entry, args, offs, n);
  struct exec_fault f;
  f.why[0] = '\0';
  const char *injected = emu_inject(EMU_INJECT_LAUNCH);
  int rc = injected ? exec_launch_failing(d->exec, emu_queue_of(ai), entry,
                                          injected, &f)
                    : exec_launch_here(d->exec, emu_queue_of(ai), entry,
                                       args, offs, n, &ctx, &f, needs);
  if (rc != 0 && f.why[0]) /* else exec reported why it could not queue */
    report_fault(d, &f);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_run_target_team_region(
    int32_t id, void *entry, void **args, ptrdiff_t *offs, int32_t n,
    int32_t teams, int32_t limit, uint64_t trip) {
  return launch(id, entry, args, offs, n, teams, limit, trip, NULL);
}

EMU_EXPORT int32_t __tgt_rtl_run_target_region(int32_t id, void *entry,
                                               void **args, ptrdiff_t *offs,
                                               int32_t n) {
  return launch(id, entry, args, offs, n, 1, 1, 0, NULL);
}

EMU_EXPORT int32_t __tgt_rtl_run_target_team_region_async(
    int32_t id, void *entry, void **args, ptrdiff_t *offs, int32_t n,
    int32_t teams, int32_t limit, uint64_t trip, __tgt_async_info *ai) {
  return launch(id, entry, args, offs, n, teams, limit, trip, ai);
}

EMU_EXPORT int32_t __tgt_rtl_run_target_region_async(int32_t id, void *entry,
                                                     void **args,
                                                     ptrdiff_t *offs,
                                                     int32_t n,
                                                     __tgt_async_info *ai) {
  return launch(id, entry, args, offs, n, 1, 1, 0, ai);
}

/* Wait for AI's queue of D and release it: 0, or -1 if a kernel queued
 * there could not start (reported here, once). */
static int sync_queue(struct emu_device *d, __tgt_async_info *ai) {
  struct exec_fault f;
  if (exec_sync(d->exec, emu_queue_of(ai), &f) == 0)
    return 0;
  report_fault(d, &f);
  return -1;
}

EMU_EXPORT int32_t __tgt_rtl_synchronize(int32_t id, __tgt_async_info *ai) {
  struct emu_device *d = emu_device_get(id, "synchronize");
  if (!d)
    return OFFLOAD_FAIL;
  if (!ai) {
    ompemu_error("emu", "device %d: synchronize without an async info", id);
    return OFFLOAD_FAIL;
  }
  return sync_queue(d, ai) == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_init_async_info(int32_t id,
                                             __tgt_async_info **ai) {
  if (!ai || !emu_device_get(id, "init_async_info"))
    return OFFLOAD_FAIL;
  *ai = calloc(1, sizeof **ai);
  if (!*ai) {
    ompemu_error("emu", "device %d: out of host memory for an async info", id);
    return OFFLOAD_FAIL;
  }
  return OFFLOAD_SUCCESS;
}

EMU_EXPORT int32_t __tgt_rtl_release_async_info(int32_t id,
                                                __tgt_async_info *ai) {
  struct emu_device *d = emu_device_get(id, "release_async_info");
  if (!d || !ai)
    return OFFLOAD_FAIL;
  int rc = sync_queue(d, ai);
  free(ai);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_create_event(int32_t id, void **ev) {
  if (!ev || !emu_device_get(id, "create_event"))
    return OFFLOAD_FAIL;
  *ev = exec_event_create();
  if (!*ev) {
    ompemu_error("emu", "device %d: out of host memory for an event", id);
    return OFFLOAD_FAIL;
  }
  return OFFLOAD_SUCCESS;
}

EMU_EXPORT int32_t __tgt_rtl_record_event(int32_t id, void *ev,
                                          __tgt_async_info *ai) {
  struct emu_device *d = emu_device_get(id, "record_event");
  if (!d || !ev)
    return OFFLOAD_FAIL;
  return exec_event_record(d->exec, ev, emu_queue_of(ai)) == 0
             ? OFFLOAD_SUCCESS
             : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_wait_event(int32_t id, void *ev,
                                        __tgt_async_info *ai) {
  struct emu_device *d = emu_device_get(id, "wait_event");
  if (!d || !ev)
    return OFFLOAD_FAIL;
  return exec_event_wait(d->exec, ev, emu_queue_of(ai)) == 0
             ? OFFLOAD_SUCCESS
             : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_sync_event(int32_t id, void *ev) {
  if (!ev)
    return OFFLOAD_FAIL;
  return exec_event_sync(ev) == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_destroy_event(int32_t id, void *ev) {
  return exec_event_destroy(ev) == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}
