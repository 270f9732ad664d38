/* Devices, primary contexts and streams: number_of_devices, init_device,
 * init_requires, info, and the per-device stream pool behind
 * __tgt_async_info (Queue is a CUstream taken from the pool and given back
 * by synchronize). */
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
  pthread_mutex_lock(&d->lock);
  int rc = OFFLOAD_SUCCESS;
  if (!d->initialized) {
    CUresult r = cu.cuDevicePrimaryCtxRetain(&d->ctx, d->dev);
    if (cu_check(r, "cuDevicePrimaryCtxRetain", id, "the primary context of %s",
                 d->name) != 0)
      rc = OFFLOAD_FAIL;
    else if (cu_check(cu.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", id,
                      "context 0x%016lx", OMPEMU_P(d->ctx)) != 0)
      rc = OFFLOAD_FAIL;
    else
      d->initialized = 1;
  }
  pthread_mutex_unlock(&d->lock);
  if (rc == OFFLOAD_SUCCESS)
    ompemu_trace(2, CU_WHO, "device %d initialised, primary context " OMPEMU_PTR,
                 (int)id, OMPEMU_P(d->ctx));
  return rc;
}

struct cu_device *cu_enter(int32_t id, const char *what) {
  struct cu_device *d = cu_dev(id);
  if (!d || !d->initialized) {
    ompemu_error(CU_WHO, "%s: device %d is %s", what, (int)id,
                 d ? "not initialised" : "not present");
    return NULL;
  }
  /* Each runtime thread may arrive here first; contexts are per thread. */
  if (cu_check(cu.cuCtxSetCurrent(d->ctx), "cuCtxSetCurrent", id, "%s", what))
    return NULL;
  return d;
}

CUstream cu_stream_get(struct cu_device *d, int32_t id) {
  CUstream s = NULL;
  pthread_mutex_lock(&d->lock);
  if (d->pool_len > 0)
    s = d->pool[--d->pool_len];
  pthread_mutex_unlock(&d->lock);
  if (s)
    return s;
  CUresult r = cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  if (cu_check(r, "cuStreamCreate", id, "a new stream") != 0)
    return NULL;
  ompemu_trace(2, CU_WHO, "device %d: new stream " OMPEMU_PTR, (int)id,
               OMPEMU_P(s));
  return s;
}

void cu_stream_put(struct cu_device *d, CUstream s) {
  pthread_mutex_lock(&d->lock);
  if (d->pool_len == d->pool_cap) {
    int cap = d->pool_cap ? d->pool_cap * 2 : 8;
    CUstream *p = realloc(d->pool, (size_t)cap * sizeof *p);
    if (!p) {
      pthread_mutex_unlock(&d->lock);
      cu.cuStreamDestroy(s);
      return;
    }
    d->pool = p;
    d->pool_cap = cap;
  }
  d->pool[d->pool_len++] = s;
  pthread_mutex_unlock(&d->lock);
}

CUstream cu_queue(struct cu_device *d, int32_t id, __tgt_async_info *ai) {
  if (!ai->Queue)
    ai->Queue = cu_stream_get(d, id);
  return (CUstream)ai->Queue;
}

CU_EXPORT int32_t __tgt_rtl_synchronize(int32_t id, __tgt_async_info *ai) {
  struct cu_device *d = cu_enter(id, "synchronize");
  if (!d || !ai)
    return OFFLOAD_FAIL;
  if (!ai->Queue)
    return OFFLOAD_SUCCESS;
  CUstream s = (CUstream)ai->Queue;
  CUresult r = cu.cuStreamSynchronize(s);
  ai->Queue = NULL;
  if (cu_check(r, "cuStreamSynchronize", id, "stream 0x%016lx", OMPEMU_P(s))) {
    /* The stream may hold a sticky error: do not reuse it. */
    cu.cuStreamDestroy(s);
    return OFFLOAD_FAIL;
  }
  cu_stream_put(d, s);
  return OFFLOAD_SUCCESS;
}

CU_EXPORT int32_t __tgt_rtl_init_async_info(int32_t id, __tgt_async_info **out) {
  struct cu_device *d = cu_enter(id, "init_async_info");
  if (!d || !out)
    return OFFLOAD_FAIL;
  __tgt_async_info *ai = *out ? *out : calloc(1, sizeof *ai);
  if (!ai)
    return OFFLOAD_FAIL;
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
