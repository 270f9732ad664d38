/* What every launch and copy needs, kept for reuse: completion signals,
 * kernarg buffers and fine-grained staging buffers.  Created per operation
 * they cost an allocation, an access grant, a signal creation and their
 * release each time; taken from a device's idle lists they cost nothing
 * but resetting the signal.  At most HSA_IDLE_SIGNALS signals and
 * HSA_IDLE_KERNARG / HSA_IDLE_STAGING bytes of buffers stay idle per
 * device; the rest is released at once, and everything by hsa_reuse_fini
 * (hsa_agent_fini, when the plugin is unloaded).  The lists are under
 * d->lock, never held across an HSA call. */
#include "config.h"
#include "hsa_plugin.h"
#include "trace.h"

#include <stdlib.h>

#define HSA_IDLE_SIGNALS 256
#define HSA_IDLE_KERNARG ((size_t)1 << 20)
#define HSA_IDLE_STAGING ((size_t)64 << 20)
/* Staging buffers are rounded up so that nearby sizes share them; a
 * kernarg buffer is reused for a launch of exactly its size (a kernel's
 * kernarg segment size does not change), so the packet's kernarg extent is
 * the kernel's. */
#define HSA_KERNARG_ROUND 1
#define HSA_STAGING_ROUND 256

static const size_t idle_max[HSA_BUF_KINDS] = {HSA_IDLE_KERNARG,
                                               HSA_IDLE_STAGING};
static const size_t round_to[HSA_BUF_KINDS] = {HSA_KERNARG_ROUND,
                                               HSA_STAGING_ROUND};

int hsa_signal_take(struct hsa_device *d, hsa_signal_t *s, const char *what) {
  int reused = 0;
  pthread_mutex_lock(&d->lock);
  if (d->nidle_signals > 0) {
    *s = d->idle_signals[--d->nidle_signals];
    reused = 1;
  }
  pthread_mutex_unlock(&d->lock);
  if (reused) {
    H.hsa_signal_store_screlease(*s, 1);
    return 0;
  }
  hsa_status_t st = H.hsa_signal_create(1, 0, NULL, s);
  if (st != HSA_STATUS_SUCCESS) {
    hsa_fail("hsa_signal_create", st, "completion signal of %s", what);
    return -1;
  }
  return 0;
}

void hsa_signal_give(struct hsa_device *d, hsa_signal_t s) {
  pthread_mutex_lock(&d->lock);
  if (d->nidle_signals == d->idle_signals_cap &&
      d->idle_signals_cap < HSA_IDLE_SIGNALS) {
    size_t cap = d->idle_signals_cap ? 2 * d->idle_signals_cap : 16;
    hsa_signal_t *n = realloc(d->idle_signals, cap * sizeof *n);
    if (n) {
      d->idle_signals = n;
      d->idle_signals_cap = cap;
    }
  }
  if (d->nidle_signals < d->idle_signals_cap) {
    d->idle_signals[d->nidle_signals++] = s;
    pthread_mutex_unlock(&d->lock);
    return;
  }
  pthread_mutex_unlock(&d->lock);
  hsa_status_t st = H.hsa_signal_destroy(s);
  if (st != HSA_STATUS_SUCCESS)
    hsa_fail("hsa_signal_destroy", st, "signal 0x%016lx",
             (unsigned long)s.handle);
}

struct hsa_buf *hsa_buf_take(struct hsa_device *d, enum hsa_buf_kind kind,
                             size_t size, const char *what) {
  pthread_mutex_lock(&d->lock);
  struct hsa_buf **best = NULL;
  for (struct hsa_buf **pp = &d->idle_bufs[kind]; *pp; pp = &(*pp)->next)
    if (kind == HSA_BUF_KERNARG ? (*pp)->size == size
                                : (*pp)->size >= size &&
                                      (!best || (*pp)->size < (*best)->size)) {
      best = pp;
      if (kind == HSA_BUF_KERNARG)
        break;
    }
  if (best) {
    struct hsa_buf *b = *best;
    *best = b->next;
    d->idle_bytes[kind] -= b->size;
    pthread_mutex_unlock(&d->lock);
    return b;
  }
  pthread_mutex_unlock(&d->lock);
  struct hsa_buf *b = malloc(sizeof *b);
  if (!b) {
    ompemu_error(HSA_WHO, "out of host memory for a %s record", what);
    return NULL;
  }
  b->size = (size + round_to[kind] - 1) / round_to[kind] * round_to[kind];
  if (b->size == 0)
    b->size = round_to[kind];
  b->ptr = hsa_mem_alloc(d, kind == HSA_BUF_KERNARG ? &hsa_st.kernarg_mem
                                                    : &hsa_st.host_mem,
                         b->size, what);
  if (!b->ptr) {
    free(b);
    return NULL;
  }
  return b;
}

void hsa_buf_give(struct hsa_device *d, enum hsa_buf_kind kind,
                  struct hsa_buf *b) {
  pthread_mutex_lock(&d->lock);
  if (d->idle_bytes[kind] + b->size <= idle_max[kind]) {
    b->next = d->idle_bufs[kind];
    d->idle_bufs[kind] = b;
    d->idle_bytes[kind] += b->size;
    pthread_mutex_unlock(&d->lock);
    return;
  }
  pthread_mutex_unlock(&d->lock);
  hsa_mem_free(b->ptr, kind == HSA_BUF_KERNARG ? "kernarg buffer"
                                               : "copy staging buffer");
  free(b);
}

void hsa_reuse_fini(struct hsa_device *d) {
  for (size_t i = 0; i < d->nidle_signals; i++) {
    hsa_status_t st = H.hsa_signal_destroy(d->idle_signals[i]);
    if (st != HSA_STATUS_SUCCESS)
      hsa_fail("hsa_signal_destroy", st, "idle signal 0x%016lx of hsa device "
               "%d", (unsigned long)d->idle_signals[i].handle, d->id);
  }
  free(d->idle_signals);
  d->idle_signals = NULL;
  d->nidle_signals = d->idle_signals_cap = 0;
  for (int k = 0; k < HSA_BUF_KINDS; k++) {
    while (d->idle_bufs[k]) {
      struct hsa_buf *b = d->idle_bufs[k];
      d->idle_bufs[k] = b->next;
      hsa_mem_free(b->ptr, k == HSA_BUF_KERNARG ? "kernarg buffer"
                                                : "copy staging buffer");
      free(b);
    }
    d->idle_bytes[k] = 0;
  }
}
