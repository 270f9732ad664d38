/* Work queued for one __tgt_async_info: its Queue field points to a
 * struct hsa_queue_ops listing, in submission order, the completion signals
 * of the copies and kernels started for it and the buffers to release (or
 * copy back) when they complete.  __tgt_rtl_synchronize waits for all of
 * them.  An async_info is used by one host thread at a time (LLVM's rule),
 * so the list has no lock. */
#include "config.h"
#include "hsa_plugin.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include <ompemu/plugin.h>

/* The op list of AI on device D, created on first use. */
struct hsa_queue_ops *hsa_ops_get(struct hsa_device *d, __tgt_async_info *ai) {
  if (!ai->Queue) {
    struct hsa_queue_ops *q = calloc(1, sizeof *q);
    if (!q) {
      ompemu_error(HSA_WHO, "out of host memory for an async queue");
      return NULL;
    }
    q->dev = d;
    ai->Queue = q;
  }
  return ai->Queue;
}

/* Wait for OP, copy a retrieve's bytes to the host (when it succeeded),
 * give its signal and buffers back; 0, or -1 if it failed. */
static int op_finish(struct hsa_device *d, struct hsa_op *op) {
  int rc = hsa_signal_wait_done(op->signal, op->is_copy ? "async copy"
                                                        : "kernel dispatch");
  if (rc == 0 && op->copy_to)
    memcpy(op->copy_to, op->staging->ptr, op->copy_size);
  hsa_signal_give(d, op->signal);
  if (op->staging)
    hsa_buf_give(d, HSA_BUF_STAGING, op->staging);
  if (op->kernarg)
    hsa_buf_give(d, HSA_BUF_KERNARG, op->kernarg);
  return rc;
}

int hsa_ops_push(struct hsa_queue_ops *q, const struct hsa_op *op) {
  if (q->n == q->cap) {
    size_t cap = q->cap ? 2 * q->cap : 8;
    struct hsa_op *n = realloc(q->ops, cap * sizeof *n);
    if (!n) {
      ompemu_error(HSA_WHO, "out of host memory for an async queue");
      /* The operation is out (a packet, a copy): it must end before its
       * signal and buffers can be given back. */
      struct hsa_op dead = *op;
      op_finish(q->dev, &dead);
      return -1;
    }
    q->ops = n;
    q->cap = cap;
  }
  q->ops[q->n++] = *op;
  return 0;
}

/* The completion signal of the newest op on Q in *SIG; returns 1, or 0 when
 * Q is empty. */
int hsa_ops_last_signal(struct hsa_queue_ops *q, hsa_signal_t *sig) {
  if (!q || q->n == 0)
    return 0;
  *sig = q->ops[q->n - 1].signal;
  return 1;
}

/* Wait until completion signal S drops below 1 (0 = done; a negative value
 * is how the runtime reports a failed copy or dispatch). */
int hsa_signal_wait_done(hsa_signal_t s, const char *what) {
  hsa_signal_value_t v;
  do
    v = H.hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                    HSA_WAIT_STATE_BLOCKED);
  while (v >= 1);
  if (v != 0) {
    ompemu_error(HSA_WHO, "%s: completion signal 0x%016lx ended at %ld, "
                 "the operation failed", what, (unsigned long)s.handle,
                 (long)v);
    return -1;
  }
  return 0;
}

/* Before a kernel dispatch: copies run outside the AQL queue, so the
 * kernel's barrier bit does not order it after them; wait for them here. */
int hsa_ops_wait_copies(struct hsa_queue_ops *q) {
  int rc = 0;
  for (size_t i = 0; q && i < q->n; i++)
    if (q->ops[i].is_copy &&
        hsa_signal_wait_done(q->ops[i].signal, "async copy") != 0)
      rc = -1;
  return rc;
}

/* Wait for every op of Q in order, copy staged results back to the host,
 * give signals and buffers back, and empty Q.  Returns -1 if any failed. */
int hsa_ops_finish(struct hsa_queue_ops *q) {
  int rc = 0;
  for (size_t i = 0; i < q->n; i++)
    if (op_finish(q->dev, &q->ops[i]) != 0)
      rc = -1;
  free(q->ops);
  q->ops = NULL;
  q->n = q->cap = 0;
  return rc;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_synchronize(int32_t id, __tgt_async_info *ai) {
  if (!hsa_dev_get(id, "synchronize") || !ai)
    return OFFLOAD_FAIL;
  struct hsa_queue_ops *q = ai->Queue;
  if (!q)
    return OFFLOAD_SUCCESS;
  int rc = hsa_ops_finish(q);
  free(q);
  ai->Queue = NULL;
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}
