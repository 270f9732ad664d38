/* Plugin call wrappers (rt_dev_*: local device id filled in, the async
 * entry points used when the plugin has them together with synchronize)
 * and the per-construct transfer context rt_op (data.h). */
#include "config.h"
#include "data.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

static int has_async(const struct rt_plugin *p) { return p->synchronize != NULL; }

void *rt_dev_alloc(struct rt_device *d, int64_t size, void *hst, int32_t kind) {
  void *p = d->plugin->data_alloc(d->local_id, size, hst, kind);
  DTRACE(2, "device %d: alloc %ld bytes (kind %d) -> " OMPEMU_PTR, d->id,
           (long)size, (int)kind, OMPEMU_P(p));
  return p;
}

int rt_dev_free(struct rt_device *d, void *tgt) {
  DTRACE(2, "device %d: free " OMPEMU_PTR, d->id, OMPEMU_P(tgt));
  return d->plugin->data_delete(d->local_id, tgt) == OFFLOAD_SUCCESS ? 0 : -1;
}

/* Copies go on the queue only when something is already queued there (a
 * kernel): otherwise a synchronous copy keeps the order just as well and
 * saves the hand-off to the device's thread. */
static int use_queue(const struct rt_plugin *p, const __tgt_async_info *async) {
  return async && async->Queue && has_async(p);
}

int rt_dev_submit(struct rt_device *d, void *tgt, const void *hst,
                  int64_t size, __tgt_async_info *async) {
  struct rt_plugin *p = d->plugin;
  int32_t rc;
  if (use_queue(p, async) && p->data_submit_async)
    rc = p->data_submit_async(d->local_id, tgt, (void *)hst, size, async);
  else
    rc = p->data_submit(d->local_id, tgt, (void *)hst, size);
  return rc == OFFLOAD_SUCCESS ? 0 : -1;
}

int rt_dev_retrieve(struct rt_device *d, void *hst, const void *tgt,
                    int64_t size, __tgt_async_info *async) {
  struct rt_plugin *p = d->plugin;
  int32_t rc;
  if (use_queue(p, async) && p->data_retrieve_async)
    rc = p->data_retrieve_async(d->local_id, hst, (void *)tgt, size, async);
  else
    rc = p->data_retrieve(d->local_id, hst, (void *)tgt, size);
  return rc == OFFLOAD_SUCCESS ? 0 : -1;
}

int rt_dev_sync(struct rt_device *d, __tgt_async_info *async) {
  struct rt_plugin *p = d->plugin;
  if (!async || !async->Queue || !has_async(p))
    return 0;
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
  memset(op, 0, sizeof *op);
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

int rt_op_sync(struct rt_op *op) { return rt_dev_sync(op->d, &op->async); }

void rt_op_fini(struct rt_op *op) {
  rt_op_sync(op);
  while (op->slots) {
    struct rt_slots *n = op->slots->next;
    free(op->slots);
    op->slots = n;
  }
}
