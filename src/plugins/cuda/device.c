/* Devices and primary contexts: number_of_devices, init_device (the
 * device's primary context, retained once), init_requires, async info
 * objects, device info, and the release of everything the plugin holds
 * when it is unloaded (dlclose or process exit). */
#include "config.h"
#include "cuda_rtl.h"

#include <stdio.h>
#include <stdlib.h>

static int64_t cu_requires;    /* init_requires flags, set before init */
static uint32_t cu_info_flags; /* set_info_flag */

CU_EXPORT int32_t __tgt_rtl_number_of_devices(void) { return cu_num_devices(); }

CU_EXPORT int64_t __tgt_rtl_init_requires(int64_t flags) {
  cu_requires = flags;
  if (flags & OMP_REQ_UNIFIED_SHARED_MEMORY)
    ompemu_trace(1, CU_WHO, "requires unified_shared_memory: host pointers "
                            "are passed to kernels unchanged");
  return flags;
}

CU_EXPORT void __tgt_rtl_set_info_flag(uint32_t flags) { cu_info_flags = flags; }

CU_EXPORT int32_t __tgt_rtl_init_device(int32_t id) {
  struct cu_device *d = cu_dev(id);
  if (!d) {
    ompemu_error(CU_WHO, "init_device: no device %d (%d present)", (int)id,
                 cu_num_devices());
    return OFFLOAD_FAIL;
  }
  if (__atomic_load_n(&d->initialized, __ATOMIC_ACQUIRE))
    return OFFLOAD_SUCCESS;
  /* Retained outside the lock (creating a context takes long); a thread
   * that loses the race gives its reference back. */
  CUcontext ctx = NULL;
  CUresult r = cu.cuDevicePrimaryCtxRetain(&ctx, d->dev);
  if (cu_check(r, "cuDevicePrimaryCtxRetain", id, "the primary context of %s",
               d->name) != 0)
    return OFFLOAD_FAIL;
  pthread_mutex_lock(&d->lock);
  int won = !d->initialized;
  if (won) {
    d->ctx = ctx;
    __atomic_store_n(&d->initialized, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&d->lock);
  if (!won)
    return cu_check(cu.cuDevicePrimaryCtxRelease(d->dev),
                    "cuDevicePrimaryCtxRelease", id, "an extra reference to "
                    "the primary context of %s", d->name)
               ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
  ompemu_trace(2, CU_WHO, "device %d initialised, primary context " OMPEMU_PTR,
               (int)id, OMPEMU_P(ctx));
  return OFFLOAD_SUCCESS;
}

struct cu_device *cu_enter(int32_t id, const char *what) {
  struct cu_device *d = cu_dev(id);
  if (!d || !__atomic_load_n(&d->initialized, __ATOMIC_ACQUIRE)) {
    ompemu_error(CU_WHO, "%s: device %d is %s", what, (int)id,
                 d ? "not initialised" : "not present");
    return NULL;
  }
  return d;
}

int cu_use(struct cu_device *d, int32_t id, const char *what) {
  /* Contexts are per thread, and the program may have made another one
   * current since (CUDA interop): set it for every call that needs it. */
  return cu_check(cu.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", id, "%s",
                  what);
}

CU_EXPORT int32_t __tgt_rtl_init_async_info(int32_t id, __tgt_async_info **out) {
  struct cu_device *d = cu_enter(id, "init_async_info");
  if (!d || !out)
    return OFFLOAD_FAIL;
  __tgt_async_info *ai = *out ? *out : calloc(1, sizeof *ai);
  if (!ai) {
    ompemu_error(CU_WHO, "init_async_info on device %d: out of host memory",
                 (int)id);
    return OFFLOAD_FAIL;
  }
  if (!cu_queue(d, id, ai)) {
    if (!*out)
      free(ai);
    return OFFLOAD_FAIL;
  }
  *out = ai;
  return OFFLOAD_SUCCESS;
}

CU_EXPORT int32_t __tgt_rtl_release_async_info(int32_t id, __tgt_async_info *ai) {
  struct cu_device *d = cu_enter(id, "release_async_info");
  if (!d || !ai)
    return OFFLOAD_FAIL;
  int32_t rc = __tgt_rtl_synchronize(id, ai);
  free(ai);
  return rc;
}

CU_EXPORT int32_t __tgt_rtl_init_device_info(int32_t id, __tgt_device_info *info,
                                             const char **err) {
  struct cu_device *d = cu_enter(id, "init_device_info");
  if (!d || !info) {
    if (err)
      *err = "device not initialised";
    return OFFLOAD_FAIL;
  }
  if (!info->Context)
    info->Context = d->ctx;
  if (!info->Device)
    info->Device = (void *)(intptr_t)d->dev;
  return OFFLOAD_SUCCESS;
}

CU_EXPORT void __tgt_rtl_print_device_info(int32_t id) {
  struct cu_device *d = cu_dev(id);
  if (!d)
    return;
  printf("    CUDA device %d: %s\n", (int)id, d->name);
  printf("    Driver version: %d.%d\n", cu.version / 1000, cu.version % 1000 / 10);
  printf("    Compute capability: sm_%d%d\n", d->cc_major, d->cc_minor);
  printf("    Multiprocessors: %d, warp size %d, max threads/block %d, "
         "max grid x %d\n", d->num_sms, d->warp_size, d->max_threads,
         d->max_grid_x);
  printf("    Default launch: %d threads/team, %d teams\n", CU_DEFAULT_THREADS,
         d->num_sms > 0 ? d->num_sms * CU_TEAMS_PER_SM : CU_FALLBACK_TEAMS);
}

/* Give back what device D holds: streams, stagers and pinned buffers,
 * pool blocks, modules and the fptr table, then its primary context.
 * A driver already shut down (CUDA_ERROR_DEINITIALIZED at process exit)
 * has released all of it: nothing to say then. */
static void cu_device_fini(struct cu_device *d, int32_t id) {
  CUresult r = cu.cuCtxSetCurrent(d->ctx);
  if (r == CUDA_ERROR_DEINITIALIZED)
    return;
  if (cu_check(r, "cuCtxSetCurrent", id, "releasing the device") != 0)
    return;
  cu_streams_fini(d, id);
  cu_staging_fini(d, id);
  cu_pool_fini(d, id);
  cu_modules_fini(d, id);
  if (d->fptr_table)
    cu_check(cu.cuMemFree(d->fptr_table), "cuMemFree", id, "the fptr table "
             "0x%016lx", (unsigned long)d->fptr_table);
  d->fptr_table = 0;
  for (struct cu_host_alloc *h = d->host_allocs, *next; h; h = next) {
    next = h->next;
    cu_check(cu.cuMemFreeHost(h->ptr), "cuMemFreeHost", id, "host allocation "
             "0x%016lx", OMPEMU_P(h->ptr));
    free(h);
  }
  d->host_allocs = NULL;
  cu_check(cu.cuCtxSetCurrent(NULL), "cuCtxSetCurrent", id, "no context");
  cu_check(cu.cuDevicePrimaryCtxRelease(d->dev), "cuDevicePrimaryCtxRelease",
           id, "the primary context of %s", d->name);
  d->initialized = 0;
}

__attribute__((destructor)) static void cu_fini(void) {
  int n = cu_loaded_devices();
  for (int i = 0; i < n; i++)
    if (cu_dev(i)->initialized)
      cu_device_fini(cu_dev(i), i);
  cu_unload();
}
