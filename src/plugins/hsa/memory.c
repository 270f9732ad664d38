/* Device memory and copies.  DEVICE/DEFAULT allocations come from the
 * agent's coarse-grained device-local memory, HOST/SHARED ones from
 * fine-grained system memory made accessible to the agent.  With the AMD
 * extension, a copy between host memory and the device goes through a
 * fine-grained staging buffer (kept for reuse, reuse.c) and
 * hsa_amd_memory_async_copy (pageable host memory is not visible to the
 * copy engines); without it, hsa_memory_copy. */
#include "config.h"
#include "hsa_plugin.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include <ompemu/plugin.h>

/* SIZE bytes from SRC for device D (NULL: system memory not tied to a
 * device); WHAT names the purpose in errors. */
void *hsa_mem_alloc(struct hsa_device *d, const struct hsa_mem_src *src,
                    size_t size, const char *what) {
  void *p = NULL;
  hsa_status_t st;
  if (size == 0)
    size = 1;
  if (src->is_pool) {
    st = H.hsa_amd_memory_pool_allocate(src->pool, size, 0, &p);
    if (st != HSA_STATUS_SUCCESS) {
      hsa_fail("hsa_amd_memory_pool_allocate", st, "%zu bytes of %s (pool "
               "0x%016lx)", size, what, (unsigned long)src->pool.handle);
      return NULL;
    }
    /* System memory must be opened to the agent that will use it. */
    if (d && src != &d->dev_mem) {
      st = H.hsa_amd_agents_allow_access(1, &d->agent, NULL, p);
      if (st != HSA_STATUS_SUCCESS) {
        hsa_fail("hsa_amd_agents_allow_access", st, "%s at " OMPEMU_PTR
                 " for hsa device %d", what, OMPEMU_P(p), d->id);
        H.hsa_amd_memory_pool_free(p);
        return NULL;
      }
    }
  } else {
    st = H.hsa_memory_allocate(src->region, size, &p);
    if (st != HSA_STATUS_SUCCESS) {
      hsa_fail("hsa_memory_allocate", st, "%zu bytes of %s (region 0x%016lx)",
               size, what, (unsigned long)src->region.handle);
      return NULL;
    }
  }
  return p;
}

/* Free PTR from whichever API allocated it (the AMD free takes both). */
int hsa_mem_free(void *ptr, const char *what) {
  hsa_status_t st;
  if (hsa_st.has_amd) {
    st = H.hsa_amd_memory_pool_free(ptr);
    if (st != HSA_STATUS_SUCCESS) {
      hsa_fail("hsa_amd_memory_pool_free", st, "%s at " OMPEMU_PTR, what,
               OMPEMU_P(ptr));
      return -1;
    }
  } else {
    st = H.hsa_memory_free(ptr);
    if (st != HSA_STATUS_SUCCESS) {
      hsa_fail("hsa_memory_free", st, "%s at " OMPEMU_PTR, what, OMPEMU_P(ptr));
      return -1;
    }
  }
  return 0;
}

/* Start an async copy DST <- SRC of SIZE bytes after everything queued on
 * Q; its op (with STAGING and the d2h destination COPY_TO) joins Q. */
static int async_copy(struct hsa_queue_ops *q, void *dst, hsa_agent_t dst_agent,
                      const void *src, hsa_agent_t src_agent, size_t size,
                      struct hsa_buf *staging, void *copy_to,
                      const char *what) {
  struct hsa_op op = {.staging = staging, .copy_to = copy_to,
                      .copy_size = size, .is_copy = 1};
  if (hsa_signal_take(q->dev, &op.signal, what) != 0) {
    if (staging)
      hsa_buf_give(q->dev, HSA_BUF_STAGING, staging);
    return -1;
  }
  hsa_signal_t dep;
  int ndep = hsa_ops_last_signal(q, &dep);
  hsa_status_t st = H.hsa_amd_memory_async_copy(
      dst, dst_agent, src, src_agent, size, (uint32_t)ndep, ndep ? &dep : NULL,
      op.signal);
  if (st != HSA_STATUS_SUCCESS) {
    hsa_fail("hsa_amd_memory_async_copy", st, "%s: " OMPEMU_PTR " <- "
             OMPEMU_PTR ", %zu bytes", what, OMPEMU_P(dst), OMPEMU_P(src),
             size);
    hsa_signal_give(q->dev, op.signal);
    if (staging)
      hsa_buf_give(q->dev, HSA_BUF_STAGING, staging);
    return -1;
  }
  return hsa_ops_push(q, &op);
}

/* Copy SIZE host bytes HST to device TGT; queued on OPS (the caller
 * finishes OPS for a synchronous copy). */
int hsa_copy_h2d(struct hsa_device *d, void *tgt, const void *hst,
                 size_t size, struct hsa_queue_ops *ops) {
  if (!hsa_st.has_amd) {
    hsa_status_t st = H.hsa_memory_copy(tgt, hst, size);
    if (st != HSA_STATUS_SUCCESS) {
      hsa_fail("hsa_memory_copy", st, "host " OMPEMU_PTR " -> device %d "
               OMPEMU_PTR ", %zu bytes", OMPEMU_P(hst), d->id, OMPEMU_P(tgt),
               size);
      return -1;
    }
    return 0;
  }
  struct hsa_buf *stg = hsa_buf_take(d, HSA_BUF_STAGING, size,
                                     "copy staging buffer");
  if (!stg)
    return -1;
  memcpy(stg->ptr, hst, size);
  return async_copy(ops, tgt, d->agent, stg->ptr, hsa_st.cpu_agent, size, stg,
                    NULL, "host to device copy");
}

/* Copy SIZE device bytes TGT to host HST; the bytes reach HST when OPS is
 * finished. */
int hsa_copy_d2h(struct hsa_device *d, void *hst, const void *tgt,
                 size_t size, struct hsa_queue_ops *ops) {
  if (!hsa_st.has_amd) {
    hsa_status_t st = H.hsa_memory_copy(hst, tgt, size);
    if (st != HSA_STATUS_SUCCESS) {
      hsa_fail("hsa_memory_copy", st, "device %d " OMPEMU_PTR " -> host "
               OMPEMU_PTR ", %zu bytes", d->id, OMPEMU_P(tgt), OMPEMU_P(hst),
               size);
      return -1;
    }
    return 0;
  }
  struct hsa_buf *stg = hsa_buf_take(d, HSA_BUF_STAGING, size,
                                     "copy staging buffer");
  if (!stg)
    return -1;
  return async_copy(ops, stg->ptr, hsa_st.cpu_agent, tgt, d->agent, size, stg,
                    hst, "device to host copy");
}

/* With several GPUs, open device memory P of D to the other agents so
 * device-to-device copies work; without peer access (PCIe P2P), note it
 * once and stop offering data_exchange. */
static void open_to_peers(struct hsa_device *d, void *p) {
  if (!hsa_st.has_amd || hsa_st.ndev < 2 || hsa_st.no_peer)
    return;
  hsa_agent_t peers[64];
  uint32_t n = 0;
  for (int i = 0; i < hsa_st.ndev && n < 64; i++)
    if (i != d->id)
      peers[n++] = hsa_st.dev[i].agent;
  hsa_status_t st = H.hsa_amd_agents_allow_access(n, peers, NULL, p);
  if (st != HSA_STATUS_SUCCESS) {
    hsa_st.no_peer = 1;
    ompemu_trace(1, HSA_WHO, "device %d: no peer access to " OMPEMU_PTR
                 " (hsa_amd_agents_allow_access: %s): device-to-device copies "
                 "go through the host", d->id, OMPEMU_P(p),
                 hsa_status_text(st));
  }
}

OMPEMU_HSA_EXPORT void *__tgt_rtl_data_alloc(int32_t id, int64_t size,
                                          void *hst_ptr, int32_t kind) {
  struct hsa_device *d = hsa_dev_ready(id, "data_alloc");
  if (!d || size < 0)
    return NULL;
  const struct hsa_mem_src *src;
  switch (kind) {
  case TARGET_ALLOC_DEVICE:
  case TARGET_ALLOC_DEFAULT:
    src = &d->dev_mem;
    break;
  case TARGET_ALLOC_HOST:
  case TARGET_ALLOC_SHARED:
    src = &hsa_st.host_mem;
    break;
  default:
    ompemu_error(HSA_WHO, "data_alloc: unknown allocation kind %d", kind);
    return NULL;
  }
  void *p = hsa_mem_alloc(d, src, (size_t)size, "data_alloc");
  if (p && src == &d->dev_mem)
    open_to_peers(d, p);
  ompemu_trace(2, HSA_WHO, "device %d: alloc %lld bytes (kind %d) for host "
               OMPEMU_PTR " -> " OMPEMU_PTR, id, (long long)size, kind,
               OMPEMU_P(hst_ptr), OMPEMU_P(p));
  return p;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_data_delete(int32_t id, void *tgt_ptr) {
  if (!hsa_dev_get(id, "data_delete"))
    return OFFLOAD_FAIL;
  ompemu_trace(2, HSA_WHO, "device %d: free " OMPEMU_PTR, id,
               OMPEMU_P(tgt_ptr));
  return hsa_mem_free(tgt_ptr, "data_delete") == 0 ? OFFLOAD_SUCCESS
                                                   : OFFLOAD_FAIL;
}

/* One copy for the four submit/retrieve entry points; AI NULL means
 * synchronous. */
static int32_t copy_entry(int32_t id, int h2d, void *tgt, void *hst,
                          int64_t size, __tgt_async_info *ai) {
  struct hsa_device *d = hsa_dev_ready(id, h2d ? "data_submit" : "data_retrieve");
  if (!d || size < 0)
    return OFFLOAD_FAIL;
  if (size == 0)
    return OFFLOAD_SUCCESS;
  ompemu_trace(3, HSA_WHO, "device %d: %s " OMPEMU_PTR " %s " OMPEMU_PTR
               ", %lld bytes%s", id, h2d ? "submit host" : "retrieve device",
               OMPEMU_P(h2d ? hst : tgt), "->", OMPEMU_P(h2d ? tgt : hst),
               (long long)size, ai ? " (async)" : "");
  struct hsa_queue_ops local = {.dev = d};
  struct hsa_queue_ops *q = ai ? hsa_ops_get(d, ai) : &local;
  if (!q)
    return OFFLOAD_FAIL;
  int rc = h2d ? hsa_copy_h2d(d, tgt, hst, (size_t)size, q)
               : hsa_copy_d2h(d, hst, tgt, (size_t)size, q);
  if (!ai && hsa_ops_finish(q) != 0)
    rc = -1;
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_data_submit(int32_t id, void *tgt,
                                             void *hst, int64_t size) {
  return copy_entry(id, 1, tgt, hst, size, NULL);
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_data_retrieve(int32_t id, void *hst,
                                               void *tgt, int64_t size) {
  return copy_entry(id, 0, tgt, hst, size, NULL);
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_data_submit_async(int32_t id, void *tgt,
                                                   void *hst, int64_t size,
                                                   __tgt_async_info *ai) {
  return copy_entry(id, 1, tgt, hst, size, ai);
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_data_retrieve_async(int32_t id, void *hst,
                                                     void *tgt, int64_t size,
                                                     __tgt_async_info *ai) {
  return copy_entry(id, 0, tgt, hst, size, ai);
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_is_data_exchangable(int32_t src_id,
                                                        int32_t dst_id) {
  return hsa_st.has_amd && !hsa_st.no_peer && src_id >= 0 && dst_id >= 0 &&
         src_id < hsa_st.ndev && dst_id < hsa_st.ndev;
}

/* Device-to-device copy: one async copy between the two agents' memory,
 * queued on AI (NULL: synchronous). */
static int32_t exchange(int32_t src_id, void *src, int32_t dst_id, void *dst,
                        int64_t size, __tgt_async_info *ai) {
  struct hsa_device *s = hsa_dev_ready(src_id, "data_exchange");
  struct hsa_device *d = hsa_dev_ready(dst_id, "data_exchange");
  if (!s || !d || size < 0 || !__tgt_rtl_is_data_exchangable(src_id, dst_id))
    return OFFLOAD_FAIL;
  if (size == 0)
    return OFFLOAD_SUCCESS;
  ompemu_trace(3, HSA_WHO, "device %d " OMPEMU_PTR " -> device %d " OMPEMU_PTR
               ", %lld bytes%s", src_id, OMPEMU_P(src), dst_id, OMPEMU_P(dst),
               (long long)size, ai ? " (async)" : "");
  struct hsa_queue_ops local = {.dev = d};
  struct hsa_queue_ops *q = ai ? hsa_ops_get(d, ai) : &local;
  if (!q)
    return OFFLOAD_FAIL;
  int rc = async_copy(q, dst, d->agent, src, s->agent, (size_t)size, NULL,
                      NULL, "device to device copy");
  if (!ai && hsa_ops_finish(q) != 0)
    rc = -1;
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_data_exchange(int32_t src_id, void *src,
                                                  int32_t dst_id, void *dst,
                                                  int64_t size) {
  return exchange(src_id, src, dst_id, dst, size, NULL);
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_data_exchange_async(
    int32_t src_id, void *src, int32_t dst_id, void *dst, int64_t size,
    __tgt_async_info *ai) {
  return exchange(src_id, src, dst_id, dst, size, ai);
}
