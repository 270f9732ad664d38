/* Large host<->device copies through pinned host memory.  The driver
 * copies pageable memory through its own small staging buffers, slowly
 * (6 GB/s measured on an H100 where pinned memory reaches 50); copies of at
 * least cu_tune.stage_min bytes (OMPEMU_CUDA_STAGING_THRESHOLD, 1 MiB)
 * go through the plugin's pinned buffers instead:
 *
 * - a synchronous copy uses a stager, two pinned buffers of
 *   cu_tune.stage_chunk bytes (OMPEMU_CUDA_STAGING_CHUNK, 4 MiB): while the
 *   copy engine moves one chunk, the host fills (or empties) the other;
 *   each buffer's event says when it may be reused.  It returns when every
 *   byte has arrived, as a synchronous copy must.
 * - an async copy on a queue takes one pinned buffer of its size (at most
 *   cu_tune.pinned_max bytes of them, OMPEMU_CUDA_STAGING_MAX, 256 MiB):
 *   a submit copies the host bytes into it chunk by chunk, each chunk's
 *   transfer queued as soon as it is there, so the host buffer is not read
 *   after the call returns; a retrieve queues the transfer into it, and its
 *   bytes reach the host buffer when the queue is synchronized (they are
 *   valid only after synchronize, as for any async retrieve).  The buffer
 *   is released at that synchronize (struct cu_deferred).
 *
 * When no pinned memory can be had (the limits above, or the driver
 * refuses) the copy is left to the driver, unstaged.  Stagers, pinned
 * buffers and deferred work are on D's lists under d->lock, never held
 * across a driver call. */
#include "config.h"
#include "cuda_rtl.h"

#include <stdlib.h>
#include <string.h>

/* Release stager G's resources (context current); 0 or -1. */
static int stager_free(int32_t id, struct cu_stager *g) {
  int rc = 0;
  for (int i = 0; i < 2; i++) {
    if (g->ev[i] && cu_check(cu.cuEventDestroy(g->ev[i]), "cuEventDestroy", id,
                             "a staging event"))
      rc = -1;
    if (g->buf[i] && cu_check(cu.cuMemFreeHost(g->buf[i]), "cuMemFreeHost", id,
                              "a staging buffer 0x%016lx", OMPEMU_P(g->buf[i])))
      rc = -1;
  }
  if (g->stream && cu_check(cu.cuStreamDestroy(g->stream), "cuStreamDestroy",
                            id, "a staging stream"))
    rc = -1;
  free(g);
  return rc;
}

/* An idle stager of D, or a new one while D has fewer than CU_MAX_STAGERS;
 * NULL when none can be had (noted in the trace). */
static struct cu_stager *stager_get(struct cu_device *d, int32_t id) {
  pthread_mutex_lock(&d->lock);
  struct cu_stager *g = d->stagers;
  if (g)
    d->stagers = g->next;
  else if (d->nstagers < CU_MAX_STAGERS)
    d->nstagers++;
  else {
    pthread_mutex_unlock(&d->lock);
    ompemu_trace(2, CU_WHO, "device %d: %d staged copies already running: "
                 "this one is not staged", (int)id, CU_MAX_STAGERS);
    return NULL;
  }
  pthread_mutex_unlock(&d->lock);
  if (g)
    return g;
  g = calloc(1, sizeof *g);
  CUresult r = g ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
  for (int i = 0; i < 2 && r == CUDA_SUCCESS; i++) {
    r = cu.cuMemHostAlloc(&g->buf[i], cu_tune.stage_chunk, 0);
    if (r == CUDA_SUCCESS)
      r = cu.cuEventCreate(&g->ev[i], CU_EVENT_DISABLE_TIMING);
  }
  if (r == CUDA_SUCCESS)
    r = cu.cuStreamCreate(&g->stream, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS) {
    ompemu_trace(2, CU_WHO, "device %d: staging buffers " OMPEMU_PTR " and "
                 OMPEMU_PTR " of %zu bytes", (int)id, OMPEMU_P(g->buf[0]),
                 OMPEMU_P(g->buf[1]), cu_tune.stage_chunk);
    return g;
  }
  ompemu_trace(1, CU_WHO, "device %d: no pinned staging buffers (%s): large "
               "copies are not staged", (int)id, cu_err_name(r));
  if (g)
    stager_free(id, g);
  pthread_mutex_lock(&d->lock);
  d->nstagers--;
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

static void stager_put(struct cu_device *d, struct cu_stager *g) {
  pthread_mutex_lock(&d->lock);
  g->next = d->stagers;
  d->stagers = g;
  pthread_mutex_unlock(&d->lock);
}

/* The chunk size for a copy of N bytes: the stager's, or less so that a
 * copy of a few chunks still overlaps (4 chunks at least, 64 KiB each at
 * least). */
static size_t chunk_for(size_t n) {
  size_t c = (n / 4 + 0xffff) & ~(size_t)0xffff;
  if (c == 0)
    c = 0x10000;
  return c < cu_tune.stage_chunk ? c : cu_tune.stage_chunk;
}

/* Host to device: fill a buffer, queue its transfer, record its event;
 * before refilling a buffer wait for its event. */
static CUresult stage_h2d(struct cu_stager *g, CUdeviceptr dp, const char *hst,
                          size_t n, size_t chunk, const char **call) {
  CUresult r = CUDA_SUCCESS;
  size_t i = 0;
  for (size_t off = 0; off < n && r == CUDA_SUCCESS; off += chunk, i++) {
    size_t len = n - off < chunk ? n - off : chunk;
    int b = (int)(i & 1);
    if (i >= 2 && (r = cu.cuEventSynchronize(g->ev[b])) != CUDA_SUCCESS) {
      *call = "cuEventSynchronize";
      break;
    }
    memcpy(g->buf[b], hst + off, len);
    *call = "cuMemcpyHtoDAsync";
    r = cu.cuMemcpyHtoDAsync(dp + off, g->buf[b], len, g->stream);
    if (r == CUDA_SUCCESS) {
      *call = "cuEventRecord";
      r = cu.cuEventRecord(g->ev[b], g->stream);
    }
  }
  return r;
}

/* Device to host: keep two transfers queued; empty a buffer once its
 * event says it is full, then queue the transfer after next into it. */
static CUresult stage_d2h(struct cu_stager *g, CUdeviceptr dp, char *hst,
                          size_t n, size_t chunk, const char **call) {
  size_t nchunks = (n + chunk - 1) / chunk;
  CUresult r = CUDA_SUCCESS;
  for (size_t i = 0; i < nchunks && i < 2 && r == CUDA_SUCCESS; i++) {
    size_t off = i * chunk, len = n - off < chunk ? n - off : chunk;
    *call = "cuMemcpyDtoHAsync";
    r = cu.cuMemcpyDtoHAsync(g->buf[i], dp + off, len, g->stream);
    if (r == CUDA_SUCCESS) {
      *call = "cuEventRecord";
      r = cu.cuEventRecord(g->ev[i], g->stream);
    }
  }
  for (size_t i = 0; i < nchunks && r == CUDA_SUCCESS; i++) {
    int b = (int)(i & 1);
    size_t off = i * chunk, len = n - off < chunk ? n - off : chunk;
    *call = "cuEventSynchronize";
    if ((r = cu.cuEventSynchronize(g->ev[b])) != CUDA_SUCCESS)
      break;
    memcpy(hst + off, g->buf[b], len);
    if (i + 2 < nchunks) {
      size_t noff = (i + 2) * chunk, nlen = n - noff < chunk ? n - noff : chunk;
      *call = "cuMemcpyDtoHAsync";
      r = cu.cuMemcpyDtoHAsync(g->buf[b], dp + noff, nlen, g->stream);
      if (r == CUDA_SUCCESS) {
        *call = "cuEventRecord";
        r = cu.cuEventRecord(g->ev[b], g->stream);
      }
    }
  }
  return r;
}

int cu_stage_sync(struct cu_device *d, int32_t id, int to_dev, CUdeviceptr dp,
                  void *hst, size_t n) {
  if (!cu_tune.stage_min || n < cu_tune.stage_min)
    return 0;
  struct cu_stager *g = stager_get(d, id);
  if (!g)
    return 0;
  size_t chunk = chunk_for(n);
  const char *call = "";
  CUresult r = to_dev ? stage_h2d(g, dp, hst, n, chunk, &call)
                      : stage_d2h(g, dp, hst, n, chunk, &call);
  /* Done with the buffers only when nothing queued still reads them. */
  CUresult rs = cu.cuStreamSynchronize(g->stream);
  if (r == CUDA_SUCCESS && rs != CUDA_SUCCESS) {
    r = rs;
    call = "cuStreamSynchronize";
  }
  if (r != CUDA_SUCCESS) {
    cu_check(r, call, id, "a staged copy of %zu bytes %s device 0x%016lx, "
             "host 0x%016lx", n, to_dev ? "to" : "from", (unsigned long)dp,
             OMPEMU_P(hst));
    if (rs != CUDA_SUCCESS) { /* its stream is unusable: do not keep it */
      stager_free(id, g);
      pthread_mutex_lock(&d->lock);
      d->nstagers--;
      pthread_mutex_unlock(&d->lock);
    } else {
      stager_put(d, g);
    }
    return -1;
  }
  stager_put(d, g);
  ompemu_trace(3, CU_WHO, "device %d: staged %zu bytes %s device " OMPEMU_PTR
               " in chunks of %zu", (int)id, n, to_dev ? "to" : "from",
               (unsigned long)dp, chunk);
  return 1;
}

/* The smallest idle pinned buffer of D that holds N bytes, or a new one
 * while D's pinned memory stays within cu_tune.pinned_max; NULL if none. */
static struct cu_pinned *pinned_get(struct cu_device *d, int32_t id, size_t n) {
  pthread_mutex_lock(&d->lock);
  struct cu_pinned **best = NULL;
  for (struct cu_pinned **pp = &d->pinned; *pp; pp = &(*pp)->next)
    if ((*pp)->size >= n && (!best || (*pp)->size < (*best)->size))
      best = pp;
  if (best) {
    struct cu_pinned *p = *best;
    *best = p->next;
    pthread_mutex_unlock(&d->lock);
    return p;
  }
  size_t size = (n + 0xffff) & ~(size_t)0xffff;
  int room = d->pinned_bytes + size <= cu_tune.pinned_max;
  if (room)
    d->pinned_bytes += size;
  pthread_mutex_unlock(&d->lock);
  if (!room) {
    ompemu_trace(2, CU_WHO, "device %d: %zu bytes of pinned buffers in use: "
                 "a copy of %zu bytes is not staged", (int)id,
                 cu_tune.pinned_max, n);
    return NULL;
  }
  struct cu_pinned *p = calloc(1, sizeof *p);
  CUresult r = p ? cu.cuMemHostAlloc(&p->ptr, size, 0)
                 : CUDA_ERROR_OUT_OF_MEMORY;
  if (r == CUDA_SUCCESS) {
    p->size = size;
    return p;
  }
  ompemu_trace(1, CU_WHO, "device %d: no pinned buffer of %zu bytes (%s): "
               "the copy is not staged", (int)id, size, cu_err_name(r));
  free(p);
  pthread_mutex_lock(&d->lock);
  d->pinned_bytes -= size;
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

static void pinned_put(struct cu_device *d, struct cu_pinned *p) {
  pthread_mutex_lock(&d->lock);
  p->next = d->pinned;
  d->pinned = p;
  pthread_mutex_unlock(&d->lock);
}

int cu_stage_async(struct cu_device *d, int32_t id, int to_dev, CUdeviceptr dp,
                   void *hst, size_t n, CUstream s) {
  if (!cu_tune.stage_min || n < cu_tune.stage_min)
    return 0;
  struct cu_deferred *w = malloc(sizeof *w);
  struct cu_pinned *p = w ? pinned_get(d, id, n) : NULL;
  if (!p) {
    free(w);
    return 0;
  }
  CUresult r = CUDA_SUCCESS;
  const char *call;
  if (to_dev) {
    call = "cuMemcpyHtoDAsync";
    size_t chunk = chunk_for(n);
    for (size_t off = 0; off < n && r == CUDA_SUCCESS; off += chunk) {
      size_t len = n - off < chunk ? n - off : chunk;
      memcpy((char *)p->ptr + off, (char *)hst + off, len);
      r = cu.cuMemcpyHtoDAsync(dp + off, (char *)p->ptr + off, len, s);
    }
  } else {
    call = "cuMemcpyDtoHAsync";
    r = cu.cuMemcpyDtoHAsync(p->ptr, dp, n, s);
  }
  /* Even a failed submit may have queued chunks that read the buffer: it
   * is released at the synchronize either way. */
  *w = (struct cu_deferred){s, p, to_dev || r != CUDA_SUCCESS ? NULL : hst, n,
                            NULL};
  pthread_mutex_lock(&d->lock);
  w->next = d->deferred;
  d->deferred = w;
  __atomic_add_fetch(&d->ndeferred, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&d->lock);
  if (cu_check(r, call, id, "a staged copy of %zu bytes %s device 0x%016lx, "
               "host 0x%016lx, on stream 0x%016lx", n, to_dev ? "to" : "from",
               (unsigned long)dp, OMPEMU_P(hst), OMPEMU_P(s)))
    return -1;
  ompemu_trace(3, CU_WHO, "device %d: %zu bytes %s device " OMPEMU_PTR
               " staged in pinned " OMPEMU_PTR " on stream " OMPEMU_PTR,
               (int)id, n, to_dev ? "to" : "from", (unsigned long)dp,
               OMPEMU_P(p->ptr), OMPEMU_P(s));
  return 1;
}

void cu_deferred_finish(struct cu_device *d, CUstream s, int ok) {
  if (!__atomic_load_n(&d->ndeferred, __ATOMIC_ACQUIRE))
    return;
  struct cu_deferred *mine = NULL;
  pthread_mutex_lock(&d->lock);
  for (struct cu_deferred **pp = &d->deferred; *pp;) {
    struct cu_deferred *w = *pp;
    if (w->stream == s) {
      *pp = w->next;
      w->next = mine;
      mine = w;
      d->ndeferred--;
    } else {
      pp = &w->next;
    }
  }
  pthread_mutex_unlock(&d->lock);
  while (mine) {
    struct cu_deferred *w = mine;
    mine = w->next;
    if (ok && w->copy_to)
      memcpy(w->copy_to, w->buf->ptr, w->size);
    pinned_put(d, w->buf);
    free(w);
  }
}

/* Free every stager and pinned buffer of D (context current); deferred
 * work still listed was never synchronized: its buffers go too. */
int cu_staging_fini(struct cu_device *d, int32_t id) {
  int rc = 0;
  while (d->deferred) {
    struct cu_deferred *w = d->deferred;
    d->deferred = w->next;
    w->buf->next = d->pinned;
    d->pinned = w->buf;
    free(w);
  }
  d->ndeferred = 0;
  while (d->stagers) {
    struct cu_stager *g = d->stagers;
    d->stagers = g->next;
    if (stager_free(id, g))
      rc = -1;
  }
  while (d->pinned) {
    struct cu_pinned *p = d->pinned;
    d->pinned = p->next;
    if (cu_check(cu.cuMemFreeHost(p->ptr), "cuMemFreeHost", id, "a pinned "
                 "buffer 0x%016lx", OMPEMU_P(p->ptr)))
      rc = -1;
    free(p);
  }
  d->pinned_bytes = 0;
  return rc;
}
