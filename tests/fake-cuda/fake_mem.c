/* CUDA driver test double, memory: each device's memory is a range mapped
 * at FAKE_BASE + device * FAKE_STRIDE (bump allocation, 256-byte aligned,
 * never reused so addresses are the same every run, in a span of
 * FAKE_SPAN(FAKE_CUDA_MEM) bytes; at most FAKE_CUDA_MEM of them live at
 * once, so freeing memory makes room as on a GPU), pinned host memory
 * from the host heap, managed memory in the device range.  Copies check
 * that device pointers lie in memory the fake handed out (or a loaded
 * module's data) and fail with CUDA_ERROR_INVALID_VALUE otherwise. */
#define _GNU_SOURCE
#include "fake.h"
#include "fake_cuda.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FAKE_ALIGN 256
/* Address space reserved per device for CAPACITY bytes (never reused). */
#define FAKE_SPAN(capacity) ((capacity) * 64)

int fake_valid_dptr(uintptr_t p, size_t n) {
  int ok = 0;
  pthread_mutex_lock(&fake_lock);
  for (struct fake_alloc *a = fake.allocs_list; a && !ok; a = a->next)
    ok = a->live && p >= a->addr && p + n <= a->addr + a->size;
  for (struct fake_module *m = fake.modules; m && !ok; m = m->next)
    ok = m->loaded && p >= m->lo && p + n <= m->hi;
  pthread_mutex_unlock(&fake_lock);
  return ok;
}

static int live_allocs(int host) {
  int n = 0;
  pthread_mutex_lock(&fake_lock);
  for (struct fake_alloc *a = fake.allocs_list; a; a = a->next)
    n += a->live && (a->kind == 1) == host;
  pthread_mutex_unlock(&fake_lock);
  return n;
}

FAKE_EXPORT int fake_cuda_live_device_allocs(void) { return live_allocs(0); }
FAKE_EXPORT int fake_cuda_live_host_allocs(void) { return live_allocs(1); }

/* Allocate SIZE bytes of KIND for DEVICE; 0 with *R set on failure. */
static uintptr_t fake_alloc(int device, size_t size, int kind, CUresult *r) {
  *r = CUDA_SUCCESS;
  if (size == 0) {
    *r = CUDA_ERROR_INVALID_VALUE;
    return 0;
  }
  pthread_mutex_lock(&fake_lock);
  uintptr_t addr = 0;
  if (fake.alloc_fail_after >= 0 && fake.allocs >= fake.alloc_fail_after) {
    *r = CUDA_ERROR_OUT_OF_MEMORY;
    goto out;
  }
  if (kind == 1) {
    void *h = NULL;
    if (posix_memalign(&h, FAKE_ALIGN, size) != 0) {
      *r = CUDA_ERROR_OUT_OF_MEMORY;
      goto out;
    }
    addr = (uintptr_t)h;
  } else {
    uintptr_t base = FAKE_BASE + (uintptr_t)device * FAKE_STRIDE;
    if (!fake.mapped[device]) {
      void *m = mmap((void *)base, FAKE_SPAN(fake.mem_size), PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                         MAP_FIXED_NOREPLACE, -1, 0);
      if (m != (void *)base) {
        if (m != MAP_FAILED)
          munmap(m, FAKE_SPAN(fake.mem_size));
        *r = CUDA_ERROR_OUT_OF_MEMORY;
        goto out;
      }
      fake.mapped[device] = 1;
      fake.next[device] = base;
    }
    size_t rounded = (size + FAKE_ALIGN - 1) & ~(size_t)(FAKE_ALIGN - 1);
    if (fake.used[device] + rounded > fake.mem_size ||
        fake.next[device] + rounded > base + FAKE_SPAN(fake.mem_size)) {
      *r = CUDA_ERROR_OUT_OF_MEMORY;
      goto out;
    }
    addr = fake.next[device];
    fake.next[device] += rounded;
    fake.used[device] += rounded;
    memset((void *)addr, 0xa5, size); /* fresh memory is never zero */
  }
  struct fake_alloc *a = calloc(1, sizeof *a);
  a->addr = addr;
  a->size = size;
  a->device = kind == 1 ? -1 : device;
  a->kind = kind;
  a->live = 1;
  a->next = fake.allocs_list;
  fake.allocs_list = a;
  fake.allocs++;
out:
  pthread_mutex_unlock(&fake_lock);
  return addr;
}

static CUresult fake_free(uintptr_t p, int host, const char *call) {
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  pthread_mutex_lock(&fake_lock);
  for (struct fake_alloc *a = fake.allocs_list; a; a = a->next)
    if (a->live && a->addr == p && (a->kind == 1) == host) {
      a->live = 0;
      if (!host)
        fake.used[a->device] -= (a->size + FAKE_ALIGN - 1) & ~(size_t)(FAKE_ALIGN - 1);
      if (host)
        free((void *)p);
      r = CUDA_SUCCESS;
      break;
    }
  pthread_mutex_unlock(&fake_lock);
  fake_log("%s ptr=0x%016lx -> %d", call, (unsigned long)p, (int)r);
  return r;
}

CUresult cuMemAlloc(CUdeviceptr *p, size_t size) {
  FAKE_CALL();
  int d = fake_cur_device("cuMemAlloc_v2");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUresult r;
  *p = fake_alloc(d, size, 0, &r);
  fake_log("cuMemAlloc_v2 dev=%d size=%zu -> 0x%016lx (%d)", d, size,
           (unsigned long)*p, (int)r);
  return r;
}

CUresult cuMemAllocManaged(CUdeviceptr *p, size_t size, unsigned int flags) {
  FAKE_CALL();
  int d = fake_cur_device("cuMemAllocManaged");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUresult r;
  *p = fake_alloc(d, size, 2, &r);
  fake_log("cuMemAllocManaged dev=%d size=%zu flags=%u -> 0x%016lx (%d)", d,
           size, flags, (unsigned long)*p, (int)r);
  return r;
}

CUresult cuMemAllocHost(void **p, size_t size) {
  FAKE_CALL();
  int d = fake_cur_device("cuMemAllocHost_v2");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUresult r;
  *p = (void *)fake_alloc(d, size, 1, &r);
  fake_log("cuMemAllocHost_v2 dev=%d size=%zu -> 0x%016lx (%d)", d, size,
           (unsigned long)(uintptr_t)*p, (int)r);
  return r;
}

CUresult cuMemHostAlloc(void **p, size_t size, unsigned int flags) {
  FAKE_CALL();
  int d = fake_cur_device("cuMemHostAlloc");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUresult r;
  *p = (void *)fake_alloc(d, size, 1, &r);
  fake_log("cuMemHostAlloc dev=%d size=%zu flags=%u -> 0x%016lx (%d)", d, size,
           flags, (unsigned long)(uintptr_t)*p, (int)r);
  return r;
}

CUresult cuMemFree(CUdeviceptr p) {
  FAKE_CALL();
  if (fake_cur_device("cuMemFree_v2") < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  return fake_free((uintptr_t)p, 0, "cuMemFree_v2");
}

CUresult cuMemFreeHost(void *p) {
  FAKE_CALL();
  return fake_free((uintptr_t)p, 1, "cuMemFreeHost");
}

/* Queue (or do) a copy of N bytes; CALL names it in the log. */
static CUresult copy(const char *call, void *dst, const void *src, size_t n,
                     int dst_dev, int src_dev, CUstream hs, int async) {
  int d = fake_cur_device(call);
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  struct fake_stream *s = NULL;
  if (async && hs && !(s = fake_stream_check(hs))) {
    fake_log("%s: bad stream 0x%016lx", call, (unsigned long)(uintptr_t)hs);
    return CUDA_ERROR_INVALID_HANDLE;
  }
  if ((dst_dev && !fake_valid_dptr((uintptr_t)dst, n)) ||
      (src_dev && !fake_valid_dptr((uintptr_t)src, n))) {
    fake_log("%s dev=%d dst=0x%016lx src=0x%016lx size=%zu: not device memory",
             call, d, (unsigned long)(uintptr_t)dst,
             (unsigned long)(uintptr_t)src, n);
    return CUDA_ERROR_INVALID_VALUE;
  }
  fake_log("%s dev=%d dst=0x%016lx src=0x%016lx size=%zu stream=0x%016lx", call,
           d, (unsigned long)(uintptr_t)dst, (unsigned long)(uintptr_t)src, n,
           (unsigned long)(uintptr_t)s);
  struct fake_op *op = calloc(1, sizeof *op);
  op->kind = OP_COPY;
  op->dst = dst;
  op->src = src;
  op->size = n;
  return fake_submit(async ? s : NULL, op);
}

#define DP(x) ((void *)(uintptr_t)(x))

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
  FAKE_CALL();
  return copy("cuMemcpyHtoD_v2", DP(dst), src, n, 1, 0, NULL, 0);
}
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
  FAKE_CALL();
  return copy("cuMemcpyDtoH_v2", dst, DP(src), n, 0, 1, NULL, 0);
}
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  FAKE_CALL();
  return copy("cuMemcpyDtoD_v2", DP(dst), DP(src), n, 1, 1, NULL, 0);
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n,
                           CUstream s) {
  FAKE_CALL();
  return copy("cuMemcpyHtoDAsync_v2", DP(dst), src, n, 1, 0, s, 1);
}
CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  FAKE_CALL();
  return copy("cuMemcpyDtoHAsync_v2", dst, DP(src), n, 0, 1, s, 1);
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
                           CUstream s) {
  FAKE_CALL();
  return copy("cuMemcpyDtoDAsync_v2", DP(dst), DP(src), n, 1, 1, s, 1);
}

static int ctx_ok(CUcontext c) {
  struct fake_ctx *x = (struct fake_ctx *)c;
  return x && x->magic == FAKE_CTX_MAGIC && x->refs > 0;
}

CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                      CUcontext sctx, size_t n) {
  FAKE_CALL();
  if (!ctx_ok(dctx) || !ctx_ok(sctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  return copy("cuMemcpyPeer", DP(dst), DP(src), n, 1, 1, NULL, 0);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src,
                           CUcontext sctx, size_t n, CUstream s) {
  FAKE_CALL();
  if (!ctx_ok(dctx) || !ctx_ok(sctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  return copy("cuMemcpyPeerAsync", DP(dst), DP(src), n, 1, 1, s, 1);
}
