/* CUDA driver test double, streams and events.  Work queued on a stream
 * runs when someone waits for it (cuStreamSynchronize, cuEventSynchronize,
 * a stream waiting on an event, cuStreamDestroy), in queue order, so a
 * plugin that forgets to synchronize sees stale data, as on a GPU.
 * Synchronous calls first drain the device's blocking streams (legacy
 * default-stream semantics); CU_STREAM_NON_BLOCKING streams are left alone.
 * FAKE_CUDA_EAGER=1 runs everything at once. */
#define _GNU_SOURCE
#include "fake.h"

#include <stdlib.h>
#include <string.h>

struct fake_stream *fake_stream_check(CUstream hs) {
  struct fake_stream *s = (struct fake_stream *)hs;
  struct fake_stream *it;
  pthread_mutex_lock(&fake_lock);
  for (it = fake.streams; it && it != s; it = it->next)
    ;
  pthread_mutex_unlock(&fake_lock);
  return it && it->magic == FAKE_STREAM_MAGIC ? it : NULL;
}

static CUresult run_op(struct fake_op *op) {
  switch (op->kind) {
  case OP_COPY:
    memcpy(op->dst, op->src, op->size);
    return CUDA_SUCCESS;
  case OP_LAUNCH:
    return fake_run_kernel(op->fn, op->nparams, op->vals);
  case OP_RECORD:
    op->ev->pending = 0;
    op->ev->stream = NULL;
    return CUDA_SUCCESS;
  case OP_WAIT:
    if (op->ev->pending && op->ev->stream)
      return fake_flush(op->ev->stream);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/* Run everything queued on S, in order.  The lock is held only to take
 * each op off the queue: kernels run unlocked, since device code may start
 * threads that call back into the fake (__kmpc_target_translate_fptr). */
CUresult fake_flush(struct fake_stream *s) {
  CUresult r = CUDA_SUCCESS;
  for (;;) {
    pthread_mutex_lock(&fake_lock);
    struct fake_op *op = s->head;
    if (op) {
      s->head = op->next;
      if (!s->head)
        s->tail = NULL;
    }
    pthread_mutex_unlock(&fake_lock);
    if (!op)
      break;
    CUresult r1 = run_op(op);
    if (r == CUDA_SUCCESS)
      r = r1;
    free(op);
  }
  return r;
}

CUresult fake_flush_blocking(int device) {
  CUresult r = CUDA_SUCCESS;
  struct fake_stream *todo[256];
  int n = 0;
  pthread_mutex_lock(&fake_lock);
  for (struct fake_stream *s = fake.streams; s && n < 256; s = s->next)
    if (s->device == device && !(s->flags & CU_STREAM_NON_BLOCKING) && s->head)
      todo[n++] = s;
  pthread_mutex_unlock(&fake_lock);
  for (int i = 0; i < n; i++) {
    CUresult r1 = fake_flush(todo[i]);
    if (r == CUDA_SUCCESS)
      r = r1;
  }
  return r;
}

/* Called without fake_lock held. */
CUresult fake_submit(struct fake_stream *s, struct fake_op *op) {
  CUresult r = CUDA_SUCCESS;
  if (!s || fake.eager) {
    if (!s && fake_cur_ctx())
      r = fake_flush_blocking(fake_cur_ctx()->device);
    if (s)
      r = fake_flush(s);
    CUresult r1 = run_op(op);
    if (r == CUDA_SUCCESS)
      r = r1;
    free(op);
    return r;
  }
  pthread_mutex_lock(&fake_lock);
  if (s->tail)
    s->tail->next = op;
  else
    s->head = op;
  s->tail = op;
  pthread_mutex_unlock(&fake_lock);
  return r;
}

CUresult cuStreamCreate(CUstream *out, unsigned int flags) {
  int d = fake_cur_device("cuStreamCreate");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  struct fake_stream *s = calloc(1, sizeof *s);
  s->magic = FAKE_STREAM_MAGIC;
  s->device = d;
  s->flags = flags;
  pthread_mutex_lock(&fake_lock);
  s->next = fake.streams;
  fake.streams = s;
  pthread_mutex_unlock(&fake_lock);
  *out = (CUstream)s;
  fake_log("cuStreamCreate dev=%d flags=%u -> 0x%016lx", d, flags,
           (unsigned long)(uintptr_t)s);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream hs) {
  struct fake_stream *s = fake_stream_check(hs);
  if (!s)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_flush(s);
  pthread_mutex_lock(&fake_lock);
  for (struct fake_stream **pp = &fake.streams; *pp; pp = &(*pp)->next)
    if (*pp == s) {
      *pp = s->next;
      break;
    }
  pthread_mutex_unlock(&fake_lock);
  s->magic = 0;
  free(s);
  fake_log("cuStreamDestroy_v2 stream=0x%016lx", (unsigned long)(uintptr_t)hs);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream hs) {
  struct fake_stream *s = hs ? fake_stream_check(hs) : NULL;
  if (hs && !s)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuStreamSynchronize stream=0x%016lx", (unsigned long)(uintptr_t)hs);
  if (!s)
    return fake_cur_ctx() ? fake_flush_blocking(fake_cur_ctx()->device)
                          : CUDA_ERROR_INVALID_CONTEXT;
  return fake_flush(s);
}

CUresult cuEventCreate(CUevent *out, unsigned int flags) {
  int d = fake_cur_device("cuEventCreate");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  struct fake_event *e = calloc(1, sizeof *e);
  e->magic = FAKE_EVENT_MAGIC;
  e->device = d;
  *out = (CUevent)e;
  fake_log("cuEventCreate dev=%d flags=%u -> 0x%016lx", d, flags,
           (unsigned long)(uintptr_t)e);
  return CUDA_SUCCESS;
}

static struct fake_event *event_check(CUevent he) {
  struct fake_event *e = (struct fake_event *)he;
  return e && e->magic == FAKE_EVENT_MAGIC ? e : NULL;
}

CUresult cuEventRecord(CUevent he, CUstream hs) {
  struct fake_event *e = event_check(he);
  struct fake_stream *s = hs ? fake_stream_check(hs) : NULL;
  if (!e || (hs && !s))
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuEventRecord event=0x%016lx stream=0x%016lx",
           (unsigned long)(uintptr_t)e, (unsigned long)(uintptr_t)s);
  struct fake_op *op = calloc(1, sizeof *op);
  op->kind = OP_RECORD;
  op->ev = e;
  pthread_mutex_lock(&fake_lock);
  e->pending = 1;
  e->stream = s;
  pthread_mutex_unlock(&fake_lock);
  return fake_submit(s, op);
}

CUresult cuStreamWaitEvent(CUstream hs, CUevent he, unsigned int flags) {
  struct fake_event *e = event_check(he);
  struct fake_stream *s = hs ? fake_stream_check(hs) : NULL;
  if (!e || (hs && !s))
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuStreamWaitEvent stream=0x%016lx event=0x%016lx flags=%u",
           (unsigned long)(uintptr_t)s, (unsigned long)(uintptr_t)e, flags);
  struct fake_op *op = calloc(1, sizeof *op);
  op->kind = OP_WAIT;
  op->ev = e;
  return fake_submit(s, op);
}

CUresult cuEventSynchronize(CUevent he) {
  struct fake_event *e = event_check(he);
  if (!e)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuEventSynchronize event=0x%016lx", (unsigned long)(uintptr_t)e);
  if (e->pending && e->stream)
    return fake_flush(e->stream);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent he) {
  struct fake_event *e = event_check(he);
  if (!e)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuEventDestroy_v2 event=0x%016lx", (unsigned long)(uintptr_t)e);
  /* Destroying an event still queued is legal; keep it until it is reached. */
  if (!e->pending) {
    e->magic = 0;
    free(e);
  }
  return CUDA_SUCCESS;
}
