/* Streams behind __tgt_async_info: Queue is a CUstream (CU_STREAM_NON_BLOCKING,
 * so the program's own CUDA work on the legacy stream does not order
 * against it; interop hands it to the program as its targetsync object),
 * taken from the device's idle streams when a construct first queues work
 * and given back by synchronize.  synchronize is the one stream
 * synchronisation of a construct: it is where a failure of queued work (a
 * kernel that faulted, a copy that failed) reaches the runtime, and where
 * staged retrieves copy their bytes to the host. */
#include "config.h"
#include "cuda_rtl.h"

#include <stdlib.h>

CUstream cu_stream_get(struct cu_device *d, int32_t id) {
  CUstream s = NULL;
  pthread_mutex_lock(&d->lock);
  if (d->nidle_streams > 0)
    s = d->idle_streams[--d->nidle_streams];
  pthread_mutex_unlock(&d->lock);
  if (s)
    return s;
  if (cu_use(d, id, "a new stream") != 0)
    return NULL;
  CUresult r = cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  if (cu_check(r, "cuStreamCreate", id, "a new stream") != 0)
    return NULL;
  ompemu_trace(2, CU_WHO, "device %d: new stream " OMPEMU_PTR, (int)id,
               OMPEMU_P(s));
  return s;
}

/* Back to the idle streams; destroyed when the list cannot grow. */
int cu_stream_put(struct cu_device *d, int32_t id, CUstream s) {
  pthread_mutex_lock(&d->lock);
  if (d->nidle_streams == d->idle_streams_cap) {
    int cap = d->idle_streams_cap ? d->idle_streams_cap * 2 : 8;
    CUstream *p = realloc(d->idle_streams, (size_t)cap * sizeof *p);
    if (!p) {
      pthread_mutex_unlock(&d->lock);
      return cu_check(cu.cuStreamDestroy(s), "cuStreamDestroy", id,
                      "stream 0x%016lx", OMPEMU_P(s));
    }
    d->idle_streams = p;
    d->idle_streams_cap = cap;
  }
  d->idle_streams[d->nidle_streams++] = s;
  pthread_mutex_unlock(&d->lock);
  return 0;
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
  /* A stream names its context: no cuCtxSetCurrent for this call. */
  CUresult r = cu.cuStreamSynchronize(s);
  ai->Queue = NULL;
  int bad = cu_check(r, "cuStreamSynchronize", id, "stream 0x%016lx",
                     OMPEMU_P(s));
  cu_deferred_finish(d, s, !bad);
  if (bad) {
    /* The stream may hold a sticky error: do not reuse it. */
    cu.cuStreamDestroy(s);
    return OFFLOAD_FAIL;
  }
  return cu_stream_put(d, id, s) ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

/* Destroy D's idle streams (the device's context is current). */
int cu_streams_fini(struct cu_device *d, int32_t id) {
  int rc = 0;
  for (int i = 0; i < d->nidle_streams; i++)
    if (cu_check(cu.cuStreamDestroy(d->idle_streams[i]), "cuStreamDestroy", id,
                 "stream 0x%016lx", OMPEMU_P(d->idle_streams[i])))
      rc = -1;
  free(d->idle_streams);
  d->idle_streams = NULL;
  d->nidle_streams = d->idle_streams_cap = 0;
  return rc;
}
