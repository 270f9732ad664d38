/* CUDA driver test double, streams and events.  Work queued on a stream
 * runs when someone waits for it (cuStreamSynchronize, cuEventSynchronize,
 * a stream waiting on an event, cuStreamDestroy), in queue order and on one
 * thread at a time, so a plugin that forgets to synchronize sees stale
 * data, as on a GPU.  A wait for an event is for its newest record at the
 * time of the wait (cuStreamWaitEvent, cuEventSynchronize).
 * Synchronous calls first drain the device's blocking streams (legacy
 * default-stream semantics); CU_STREAM_NON_BLOCKING streams are left alone.
 * FAKE_CUDA_EAGER=1 runs everything at once. */
#define _GNU_SOURCE
#include "fake.h"

pthread_cond_t fake_idle = PTHREAD_COND_INITIALIZER;

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

static int event_reached(struct fake_event *e, uint64_t seq) {
  pthread_mutex_lock(&fake_lock);
  int r = e->reached >= seq;
  pthread_mutex_unlock(&fake_lock);
  return r;
}

static CUresult run_op(struct fake_op *op) {
  switch (op->kind) {
  case OP_COPY:
    memcpy(op->dst, op->src, op->size);
    return CUDA_SUCCESS;
  case OP_LAUNCH:
    return fake_run_kernel(op->fn, op->nparams, op->vals);
  case OP_RECORD:
    pthread_mutex_lock(&fake_lock);
    if (op->seq > op->ev->reached)
      op->ev->reached = op->seq;
    pthread_mutex_unlock(&fake_lock);
    return CUDA_SUCCESS;
  case OP_WAIT:
    if (op->waited && !event_reached(op->ev, op->seq))
      return fake_flush_for(op->waited, op->ev, op->seq);
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

/* Free OP, and its event if it was destroyed while this record was its
 * newest one (caller holds nothing). */
static void op_free(struct fake_op *op) {
  struct fake_event *dead = NULL;
  if (op->kind == OP_RECORD) {
    pthread_mutex_lock(&fake_lock);
    if (op->ev->destroyed && op->ev->reached >= op->ev->recorded)
      dead = op->ev;
    pthread_mutex_unlock(&fake_lock);
  }
  free(op);
  if (dead) {
    dead->magic = 0;
    free(dead);
  }
}

/* Run S's queue in order until it is empty or, with E, until E's record
 * SEQ has run.  One thread at a time runs a stream: another one arriving
 * waits until it is idle.  The lock is held only to take each op off the
 * queue: kernels run unlocked, since device code may start threads that
 * call back into the fake (__kmpc_target_translate_fptr). */
CUresult fake_flush_for(struct fake_stream *s, struct fake_event *e,
                        uint64_t seq) {
  CUresult r = CUDA_SUCCESS;
  pthread_mutex_lock(&fake_lock);
  while (s->busy)
    pthread_cond_wait(&fake_idle, &fake_lock);
  s->busy = 1;
  for (;;) {
    if (e && e->reached >= seq)
      break;
    struct fake_op *op = s->head;
    if (!op)
      break;
    s->head = op->next;
    if (!s->head)
      s->tail = NULL;
    pthread_mutex_unlock(&fake_lock);
    CUresult r1 = run_op(op);
    if (r == CUDA_SUCCESS)
      r = r1;
    op_free(op);
    pthread_mutex_lock(&fake_lock);
  }
  s->busy = 0;
  pthread_cond_broadcast(&fake_idle);
  pthread_mutex_unlock(&fake_lock);
  return r;
}

CUresult fake_flush(struct fake_stream *s) { return fake_flush_for(s, NULL, 0); }

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
    op_free(op);
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
  FAKE_CALL();
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
  FAKE_CALL();
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
  FAKE_CALL();
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
  FAKE_CALL();
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
  FAKE_CALL();
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
  op->seq = ++e->recorded;
  e->stream = s;
  pthread_mutex_unlock(&fake_lock);
  return fake_submit(s, op);
}

/* The wait is for the event's newest record as of this call: a record
 * made later does not move it. */
CUresult cuStreamWaitEvent(CUstream hs, CUevent he, unsigned int flags) {
  FAKE_CALL();
  struct fake_event *e = event_check(he);
  struct fake_stream *s = hs ? fake_stream_check(hs) : NULL;
  if (!e || (hs && !s))
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuStreamWaitEvent stream=0x%016lx event=0x%016lx flags=%u",
           (unsigned long)(uintptr_t)s, (unsigned long)(uintptr_t)e, flags);
  struct fake_op *op = calloc(1, sizeof *op);
  op->kind = OP_WAIT;
  op->ev = e;
  pthread_mutex_lock(&fake_lock);
  op->seq = e->recorded;
  op->waited = e->stream;
  pthread_mutex_unlock(&fake_lock);
  return fake_submit(s, op);
}

CUresult cuEventSynchronize(CUevent he) {
  FAKE_CALL();
  struct fake_event *e = event_check(he);
  if (!e)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuEventSynchronize event=0x%016lx", (unsigned long)(uintptr_t)e);
  pthread_mutex_lock(&fake_lock);
  uint64_t seq = e->recorded;
  struct fake_stream *s = e->stream;
  pthread_mutex_unlock(&fake_lock);
  if (s && !event_reached(e, seq))
    return fake_flush_for(s, e, seq);
  return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent he) {
  FAKE_CALL();
  struct fake_event *e = event_check(he);
  if (!e)
    return CUDA_ERROR_INVALID_HANDLE;
  pthread_mutex_lock(&fake_lock);
  int done = e->reached >= e->recorded;
  pthread_mutex_unlock(&fake_lock);
  return done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

CUresult cuEventDestroy(CUevent he) {
  FAKE_CALL();
  struct fake_event *e = event_check(he);
  if (!e)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuEventDestroy_v2 event=0x%016lx", (unsigned long)(uintptr_t)e);
  /* Destroying an event still queued is legal; keep it until it is reached. */
  pthread_mutex_lock(&fake_lock);
  int pending = e->reached < e->recorded;
  e->destroyed = 1;
  pthread_mutex_unlock(&fake_lock);
  if (!pending) {
    e->magic = 0;
    free(e);
  }
  return CUDA_SUCCESS;
}
