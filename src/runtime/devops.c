/* Plugin call wrappers (rt_dev_*: local device id filled in, the async
 * entry points used when the plugin has them together with synchronize)
 * and the per-construct transfer context rt_op (data.h). */
#include "config.h"
#include "data.h"
#include "observe.h"
#include "trace.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int has_async(const struct rt_plugin *p) { return p->synchronize != NULL; }

/* Copies go on the queue only when something is already queued there (a
 * kernel): otherwise a synchronous copy keeps the order just as well and
 * saves the hand-off to the device's thread. */
static int use_queue(const struct rt_plugin *p, const __tgt_async_info *async) {
  return async && async->Queue && has_async(p);
}

/* The plugin calls.  Each rt_dev_* below makes its call directly, or,
 * when an observer wants that point (observe.h), through observed(): out
 * of line, so the unobserved path is the plain call behind one branch. */
enum dev_op { OP_ALLOC, OP_FREE, OP_SUBMIT, OP_RETRIEVE, OP_SYNC };

static int submit_async(const struct rt_plugin *p,
                        const __tgt_async_info *async) {
  return use_queue(p, async) && p->data_submit_async;
}
static int retrieve_async(const struct rt_plugin *p,
                          const __tgt_async_info *async) {
  return use_queue(p, async) && p->data_retrieve_async;
}

static int32_t submit(struct rt_device *d, void *tgt, const void *hst,
                      int64_t size, __tgt_async_info *async) {
  struct rt_plugin *p = d->plugin;
  if (submit_async(p, async))
    return p->data_submit_async(d->local_id, tgt, (void *)hst, size, async);
  return p->data_submit(d->local_id, tgt, (void *)hst, size);
}

static int32_t retrieve(struct rt_device *d, void *hst, const void *tgt,
                        int64_t size, __tgt_async_info *async) {
  struct rt_plugin *p = d->plugin;
  if (retrieve_async(p, async))
    return p->data_retrieve_async(d->local_id, hst, (void *)tgt, size, async);
  return p->data_retrieve(d->local_id, hst, (void *)tgt, size);
}

/* Operation OP with its observation point: begin (an observer may veto:
 * -1, NULL for an allocation), the call, end.  HST/TGT/SIZE as the
 * operation has them; *PTR receives an allocation's address. */
static __attribute__((noinline, cold)) int
observed(enum dev_op op, struct rt_device *d, void *hst, void *tgt,
         int64_t size, int32_t kind, __tgt_async_info *async, void **ptr) {
  struct obs_event ev;
  int32_t rc = OFFLOAD_FAIL;
  switch (op) {
  case OP_ALLOC:
    *ptr = NULL;
    if (obs_alloc(&ev, d, size, hst))
      return -1;
    *ptr = d->plugin->data_alloc(d->local_id, size, hst, kind);
    ev.tgt = (uintptr_t)*ptr;
    rc = *ptr ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
    break;
  case OP_FREE:
    if (obs_free(&ev, d, tgt))
      return -1;
    rc = d->plugin->data_delete(d->local_id, tgt);
    break;
  case OP_SUBMIT:
    if (obs_copy(&ev, OBS_COPY_TO, d, hst, tgt, size))
      return -1;
    ev.queued = submit_async(d->plugin, async);
    rc = submit(d, tgt, hst, size, async);
    break;
  case OP_RETRIEVE:
    if (obs_copy(&ev, OBS_COPY_FROM, d, hst, tgt, size))
      return -1;
    ev.queued = retrieve_async(d->plugin, async);
    rc = retrieve(d, hst, tgt, size, async);
    break;
  case OP_SYNC:
    if (obs_wait(&ev, d))
      return -1;
    rc = d->plugin->synchronize(d->local_id, async);
    break;
  }
  obs_end(&ev, rc != OFFLOAD_SUCCESS);
  return rc == OFFLOAD_SUCCESS ? 0 : -1;
}

void *rt_dev_alloc(struct rt_device *d, int64_t size, void *hst, int32_t kind) {
  void *p;
  if (OBS_WANTS(OBS_ALLOC))
    observed(OP_ALLOC, d, hst, NULL, size, kind, NULL, &p);
  else
    p = d->plugin->data_alloc(d->local_id, size, hst, kind);
  DTRACE(2, "device %d: alloc %ld bytes (kind %d) -> " OMPEMU_PTR, d->id,
           (long)size, (int)kind, OMPEMU_P(p));
  return p;
}

int rt_dev_free(struct rt_device *d, void *tgt) {
  DTRACE(2, "device %d: free " OMPEMU_PTR, d->id, OMPEMU_P(tgt));
  if (OBS_WANTS(OBS_FREE))
    return observed(OP_FREE, d, NULL, tgt, 0, 0, NULL, NULL);
  return d->plugin->data_delete(d->local_id, tgt) == OFFLOAD_SUCCESS ? 0 : -1;
}

int rt_dev_submit(struct rt_device *d, void *tgt, const void *hst,
                  int64_t size, __tgt_async_info *async) {
  if (OBS_WANTS(OBS_COPY_TO))
    return observed(OP_SUBMIT, d, (void *)hst, tgt, size, 0, async, NULL);
  return submit(d, tgt, hst, size, async) == OFFLOAD_SUCCESS ? 0 : -1;
}

int rt_dev_retrieve(struct rt_device *d, void *hst, const void *tgt,
                    int64_t size, __tgt_async_info *async) {
  if (OBS_WANTS(OBS_COPY_FROM))
    return observed(OP_RETRIEVE, d, hst, (void *)tgt, size, 0, async, NULL);
  return retrieve(d, hst, tgt, size, async) == OFFLOAD_SUCCESS ? 0 : -1;
}

int rt_dev_sync(struct rt_device *d, __tgt_async_info *async) {
  struct rt_plugin *p = d->plugin;
  if (!async || !async->Queue || !has_async(p))
    return 0;
  if (OBS_WANTS(OBS_WAIT))
    return observed(OP_SYNC, d, NULL, NULL, 0, 0, async, NULL);
  return p->synchronize(d->local_id, async) == OFFLOAD_SUCCESS ? 0 : -1;
}

/* ---- rt_op ---- */

#define SLOTS_PER_CHUNK 30
struct rt_slots {
  struct rt_slots *next;
  int used;
  uintptr_t v[SLOTS_PER_CHUNK];
};

void rt_op_init(struct rt_op *op, struct rt_device *d) {
  memset(op, 0, offsetof(struct rt_op, first_slots));
  op->d = d;
}

uintptr_t *rt_op_slot(struct rt_op *op) {
  if (op->nslots < RT_OP_SLOTS)
    return &op->first_slots[op->nslots++];
  if (!op->slots || op->slots->used == SLOTS_PER_CHUNK) {
    struct rt_slots *s = calloc(1, sizeof *s);
    if (!s)
      return NULL;
    s->next = op->slots;
    op->slots = s;
  }
  return &op->slots->v[op->slots->used++];
}

int rt_op_sync(struct rt_op *op) {
  if (op->sync_failed)
    return -1; /* reported once; the queue is the plugin's to clean up */
  if (rt_dev_sync(op->d, &op->async) == 0)
    return 0;
  op->sync_failed = 1;
  if (op->queued_kernel)
    ompemu_error("ompemu", "device %d: target region %s, or a copy queued "
                 "after it, failed on the device", op->d->id,
                 op->queued_kernel);
  else
    ompemu_error("ompemu", "device %d: a copy queued for this construct "
                 "failed on the device", op->d->id);
  return -1;
}

void rt_op_fini(struct rt_op *op) {
  rt_op_sync(op);
  while (op->slots) {
    struct rt_slots *n = op->slots->next;
    free(op->slots);
    op->slots = n;
  }
}
