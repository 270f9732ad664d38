/* Device memory and copies: data_alloc by kind (the pool or cuMemAlloc for
 * DEVICE and DEFAULT, cuMemAllocHost for HOST, cuMemAllocManaged for
 * SHARED), data_delete, synchronous and stream-ordered copies (large ones
 * staged through pinned memory), and device-to-device exchange
 * (cuMemcpyPeer between devices that can access each other). */
#include "config.h"
#include "cuda_rtl.h"

#include <stdio.h>
#include <stdlib.h>

static const char *kind_name(int32_t kind) {
  switch (kind) {
  case TARGET_ALLOC_DEVICE: return "device";
  case TARGET_ALLOC_HOST: return "host";
  case TARGET_ALLOC_SHARED: return "shared";
  case TARGET_ALLOC_DEFAULT: return "default";
  }
  return "unknown";
}

CU_EXPORT void *__tgt_rtl_data_alloc(int32_t id, int64_t size, void *hst,
                                     int32_t kind) {
  struct cu_device *d = cu_enter(id, "data_alloc");
  if (!d)
    return NULL;
  if (size <= 0)
    return NULL;
  CUdeviceptr p = 0;
  void *hp = NULL;
  CUresult r;
  int pooled = 0;
  switch (kind) {
  case TARGET_ALLOC_DEVICE:
  case TARGET_ALLOC_DEFAULT:
    p = cu_pool_alloc(d, id, (size_t)size, hst, &pooled);
    if (pooled) {
      if (!p)
        return NULL;
      break;
    }
    r = cu_mem_alloc(d, id, &p, (size_t)size);
    if (cu_check(r, "cuMemAlloc", id, "%ld bytes (%s) for host 0x%016lx",
                 (long)size, kind_name(kind), OMPEMU_P(hst)))
      return NULL;
    break;
  case TARGET_ALLOC_SHARED:
    if (cu_use(d, id, "data_alloc") != 0)
      return NULL;
    r = cu.cuMemAllocManaged(&p, (size_t)size, CU_MEM_ATTACH_GLOBAL);
    if (cu_check(r, "cuMemAllocManaged", id, "%ld bytes (shared)", (long)size))
      return NULL;
    break;
  case TARGET_ALLOC_HOST: {
    struct cu_host_alloc *rec = malloc(sizeof *rec);
    if (!rec) {
      ompemu_error(CU_WHO, "data_alloc on device %d: out of host memory",
                   (int)id);
      return NULL;
    }
    if (cu_use(d, id, "data_alloc") != 0) {
      free(rec);
      return NULL;
    }
    r = cu.cuMemAllocHost(&hp, (size_t)size);
    if (cu_check(r, "cuMemAllocHost", id, "%ld bytes (host)", (long)size)) {
      free(rec);
      return NULL;
    }
    rec->ptr = hp;
    pthread_mutex_lock(&d->lock);
    rec->next = d->host_allocs;
    d->host_allocs = rec;
    pthread_mutex_unlock(&d->lock);
    p = (CUdeviceptr)(uintptr_t)hp;
    break;
  }
  default:
    ompemu_error(CU_WHO, "data_alloc on device %d: unknown allocation kind %d "
                         "for %ld bytes", (int)id, (int)kind, (long)size);
    return NULL;
  }
  ompemu_trace(3, CU_WHO, "device %d: alloc %ld bytes (%s%s) -> " OMPEMU_PTR,
               (int)id, (long)size, kind_name(kind), pooled ? ", pool" : "",
               (unsigned long)p);
  return (void *)(uintptr_t)p;
}

/* Remove PTR from D's pinned host allocations; 1 if it was one. */
static int take_host_alloc(struct cu_device *d, void *ptr) {
  int found = 0;
  pthread_mutex_lock(&d->lock);
  for (struct cu_host_alloc **pp = &d->host_allocs; *pp; pp = &(*pp)->next) {
    if ((*pp)->ptr == ptr) {
      struct cu_host_alloc *dead = *pp;
      *pp = dead->next;
      free(dead);
      found = 1;
      break;
    }
  }
  pthread_mutex_unlock(&d->lock);
  return found;
}

CU_EXPORT int32_t __tgt_rtl_data_delete(int32_t id, void *tgt) {
  struct cu_device *d = cu_enter(id, "data_delete");
  if (!d)
    return OFFLOAD_FAIL;
  if (!tgt)
    return OFFLOAD_SUCCESS;
  int pooled = cu_pool_free(d, id, (CUdeviceptr)(uintptr_t)tgt);
  if (pooled != 0)
    return pooled > 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
  if (cu_use(d, id, "data_delete") != 0)
    return OFFLOAD_FAIL;
  if (take_host_alloc(d, tgt))
    return cu_check(cu.cuMemFreeHost(tgt), "cuMemFreeHost", id,
                    "host allocation 0x%016lx", OMPEMU_P(tgt))
               ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
  return cu_check(cu.cuMemFree((CUdeviceptr)(uintptr_t)tgt), "cuMemFree", id,
                  "device allocation 0x%016lx", OMPEMU_P(tgt))
             ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

/* Copy SIZE bytes between host HST and device TGT of ID (TO_DEV: host to
 * device), on AI's stream (NULL: synchronously).  WHAT names the entry.
 * Large copies are staged through pinned memory (staging.c). */
static int32_t host_copy(int32_t id, void *hst, void *tgt, int64_t size,
                         int to_dev, __tgt_async_info *ai, const char *what) {
  struct cu_device *d = cu_enter(id, what);
  if (!d)
    return OFFLOAD_FAIL;
  if (size <= 0)
    return OFFLOAD_SUCCESS;
  CUstream s = ai ? cu_queue(d, id, ai) : NULL;
  if (ai && !s)
    return OFFLOAD_FAIL;
  if (cu_use(d, id, what) != 0)
    return OFFLOAD_FAIL;
  CUdeviceptr dp = (CUdeviceptr)(uintptr_t)tgt;
  size_t n = (size_t)size;
  int staged = ai ? cu_stage_async(d, id, to_dev, dp, hst, n, s)
                  : cu_stage_sync(d, id, to_dev, dp, hst, n);
  if (staged != 0)
    return staged > 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
  CUresult r;
  const char *call;
  if (to_dev) {
    call = ai ? "cuMemcpyHtoDAsync" : "cuMemcpyHtoD";
    r = ai ? cu.cuMemcpyHtoDAsync(dp, hst, n, s) : cu.cuMemcpyHtoD(dp, hst, n);
  } else {
    call = ai ? "cuMemcpyDtoHAsync" : "cuMemcpyDtoH";
    r = ai ? cu.cuMemcpyDtoHAsync(hst, dp, n, s) : cu.cuMemcpyDtoH(hst, dp, n);
  }
  if (r == CUDA_SUCCESS)
    return OFFLOAD_SUCCESS;
  char *from = to_dev ? hst : tgt, *to = to_dev ? tgt : hst;
  char on[48] = "";
  if (ai)
    snprintf(on, sizeof on, " on stream 0x%016lx", OMPEMU_P(s));
  cu_check(r, call, id, "%s [0x%016lx..0x%016lx) to %s [0x%016lx..0x%016lx)%s",
           to_dev ? "host" : "device", OMPEMU_P(from), OMPEMU_P(from + size),
           to_dev ? "device" : "host", OMPEMU_P(to), OMPEMU_P(to + size), on);
  return OFFLOAD_FAIL;
}

CU_EXPORT int32_t __tgt_rtl_data_submit(int32_t id, void *tgt, void *hst,
                                        int64_t size) {
  return host_copy(id, hst, tgt, size, 1, NULL, "data_submit");
}

CU_EXPORT int32_t __tgt_rtl_data_retrieve(int32_t id, void *hst, void *tgt,
                                          int64_t size) {
  return host_copy(id, hst, tgt, size, 0, NULL, "data_retrieve");
}

CU_EXPORT int32_t __tgt_rtl_data_submit_async(int32_t id, void *tgt, void *hst,
                                              int64_t size,
                                              __tgt_async_info *ai) {
  return host_copy(id, hst, tgt, size, 1, ai,
                   ai ? "data_submit_async" : "data_submit");
}

CU_EXPORT int32_t __tgt_rtl_data_retrieve_async(int32_t id, void *hst,
                                                void *tgt, int64_t size,
                                                __tgt_async_info *ai) {
  return host_copy(id, hst, tgt, size, 0, ai,
                   ai ? "data_retrieve_async" : "data_retrieve");
}

CU_EXPORT int32_t __tgt_rtl_is_data_exchangable(int32_t src, int32_t dst) {
  struct cu_device *s = cu_dev(src), *t = cu_dev(dst);
  if (!s || !t)
    return 0;
  if (src == dst)
    return 1;
  int can = 0;
  CUresult r = cu.cuDeviceCanAccessPeer(&can, t->dev, s->dev);
  if (cu_check(r, "cuDeviceCanAccessPeer", dst, "peer device %d", (int)src))
    return 0;
  return can != 0;
}

/* Copy SIZE bytes from SRC on device SRC_ID to DST on DST_ID, on stream
 * STREAM (NULL: synchronously). */
static int32_t exchange(int32_t src_id, void *src, int32_t dst_id, void *dst,
                        int64_t size, __tgt_async_info *ai) {
  struct cu_device *sd = cu_enter(src_id, "data_exchange");
  if (!sd)
    return OFFLOAD_FAIL;
  struct cu_device *dd = cu_enter(dst_id, "data_exchange");
  if (!dd)
    return OFFLOAD_FAIL;
  if (size <= 0)
    return OFFLOAD_SUCCESS;
  CUdeviceptr s = (CUdeviceptr)(uintptr_t)src, t = (CUdeviceptr)(uintptr_t)dst;
  CUstream q = ai ? cu_queue(dd, dst_id, ai) : NULL;
  if (ai && !q)
    return OFFLOAD_FAIL;
  if (cu_use(dd, dst_id, "data_exchange") != 0)
    return OFFLOAD_FAIL;
  CUresult r;
  const char *call;
  if (src_id == dst_id) {
    call = ai ? "cuMemcpyDtoDAsync" : "cuMemcpyDtoD";
    r = ai ? cu.cuMemcpyDtoDAsync(t, s, (size_t)size, q)
           : cu.cuMemcpyDtoD(t, s, (size_t)size);
  } else {
    if (!__tgt_rtl_is_data_exchangable(src_id, dst_id)) {
      ompemu_error(CU_WHO, "data_exchange: device %d cannot access device %d "
                           "(cuDeviceCanAccessPeer), copy [0x%016lx..0x%016lx) "
                           "refused", (int)dst_id, (int)src_id,
                   OMPEMU_P(src), OMPEMU_P((char *)src + size));
      return OFFLOAD_FAIL;
    }
    r = cu.cuCtxEnablePeerAccess(sd->ctx, 0);
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED &&
        cu_check(r, "cuCtxEnablePeerAccess", dst_id, "peer device %d",
                 (int)src_id))
      return OFFLOAD_FAIL;
    call = ai ? "cuMemcpyPeerAsync" : "cuMemcpyPeer";
    r = ai ? cu.cuMemcpyPeerAsync(t, dd->ctx, s, sd->ctx, (size_t)size, q)
           : cu.cuMemcpyPeer(t, dd->ctx, s, sd->ctx, (size_t)size);
  }
  return cu_check(r, call, dst_id,
                  "device %d [0x%016lx..0x%016lx) to device %d "
                  "[0x%016lx..0x%016lx)", (int)src_id, OMPEMU_P(src),
                  OMPEMU_P((char *)src + size), (int)dst_id, OMPEMU_P(dst),
                  OMPEMU_P((char *)dst + size)) ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

CU_EXPORT int32_t __tgt_rtl_data_exchange(int32_t src_id, void *src,
                                          int32_t dst_id, void *dst,
                                          int64_t size) {
  return exchange(src_id, src, dst_id, dst, size, NULL);
}

CU_EXPORT int32_t __tgt_rtl_data_exchange_async(int32_t src_id, void *src,
                                                int32_t dst_id, void *dst,
                                                int64_t size,
                                                __tgt_async_info *ai) {
  return exchange(src_id, src, dst_id, dst, size, ai);
}
