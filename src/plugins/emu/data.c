/* Device memory entry points of the emu plugin: allocation by kind, checked
 * copies host<->device and device<->device, and deletion. */
#include "config.h"
#include "emu.h"
#include "trace.h"
#include "watch.h"

#include <ompemu/plugin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_name(int32_t kind) {
  switch (kind) {
  case TARGET_ALLOC_DEVICE: return "device";
  case TARGET_ALLOC_HOST: return "host";
  case TARGET_ALLOC_SHARED: return "shared";
  case TARGET_ALLOC_DEFAULT: return "default";
  default: return "unknown";
  }
}

/* Host-kind blocks: host memory, remembered so data_delete knows it.
 * Caller holds D->lock. */
static int hostblk_add(struct emu_device *d, void *p, size_t size) {
  if (d->nhostblk == d->caphostblk) {
    size_t nc = d->caphostblk ? d->caphostblk * 2 : 16;
    struct emu_hostblk *n = realloc(d->hostblk, nc * sizeof *n);
    if (!n)
      return -1;
    d->hostblk = n;
    d->caphostblk = nc;
  }
  d->hostblk[d->nhostblk++] = (struct emu_hostblk){p, size};
  return 0;
}

static void *alloc_host(struct emu_device *d, size_t size) {
  void *p = NULL;
  if (posix_memalign(&p, EMU_DATA_ALIGN, size ? size : 1) != 0)
    return NULL;
  poison_fill(arena_poison_kind(d->data), p, size ? size : 1);
  pthread_mutex_lock(&d->lock);
  int rc = hostblk_add(d, p, size);
  pthread_mutex_unlock(&d->lock);
  if (rc) {
    free(p);
    return NULL;
  }
  return p;
}

void emu_hostblk_free_all(struct emu_device *d) {
  for (size_t i = 0; i < d->nhostblk; i++)
    free(d->hostblk[i].p);
  free(d->hostblk);
  d->hostblk = NULL;
  d->nhostblk = d->caphostblk = 0;
}

/* Free a host-kind block P of D.  -1 if P is not one. */
static int free_host(struct emu_device *d, void *p) {
  pthread_mutex_lock(&d->lock);
  for (size_t i = 0; i < d->nhostblk; i++) {
    if (d->hostblk[i].p == p) {
      poison_fill(arena_poison_kind(d->data), p, d->hostblk[i].size);
      d->hostblk[i] = d->hostblk[--d->nhostblk];
      pthread_mutex_unlock(&d->lock);
      free(p);
      return 0;
    }
  }
  pthread_mutex_unlock(&d->lock);
  return -1;
}

/* N bytes as OMPEMU_DEVICE_MEMORY would write them: "1G", "1536M". */
static const char *size_words(size_t n, char *buf, size_t len) {
  const char *unit = "";
  if (n && n % (1u << 30) == 0)
    n >>= 30, unit = "G";
  else if (n && n % (1u << 20) == 0)
    n >>= 20, unit = "M";
  else if (n && n % (1u << 10) == 0)
    n >>= 10, unit = "K";
  snprintf(buf, len, "%zu%s", n, unit);
  return buf;
}

EMU_EXPORT void *__tgt_rtl_data_alloc(int32_t id, int64_t size, void *hst,
                                      int32_t kind) {
  struct emu_device *d = emu_device_get(id, "data_alloc");
  if (!d)
    return NULL;
  if (size < 0) {
    ompemu_error("emu", "device %d: allocation of a negative size %ld", id,
                 (long)size);
    return NULL;
  }
  const char *injected = emu_inject(EMU_INJECT_ALLOC);
  if (injected) {
    ompemu_error("emu", "device %d: allocation of %ld bytes (%s) failed: %s",
                 id, (long)size, kind_name(kind), injected);
    return NULL;
  }
  void *p;
  char cap[32], most[32];
  switch (kind) {
  case TARGET_ALLOC_DEVICE:
  case TARGET_ALLOC_DEFAULT:
  case TARGET_ALLOC_SHARED: /* in the process, so the host may touch it */
    p = arena_alloc(d->data, (size_t)size);
    if (p && kind == TARGET_ALLOC_SHARED) /* poisoned now: the host reads it */
      (void)arena_read_begin(d->data, p, (size_t)size);
    /* A warning: a full device is an outcome the caller defines (NULL
     * from omp_target_alloc, which a program may test for); a construct
     * that cannot map reports its own error. */
    if (!p)
      ompemu_warning("emu", "device %d: out of device memory: request of %ld "
                     "bytes, %zu of %zu in use; OMPEMU_DEVICE_MEMORY sets the "
                     "capacity (now %s, at most %s)", id, (long)size,
                     arena_in_use(d->data), arena_capacity(d->data),
                     size_words(arena_capacity(d->data), cap, sizeof cap),
                     size_words(EMU_DATA_STRIDE, most, sizeof most));
    break;
  case TARGET_ALLOC_HOST:
    p = alloc_host(d, (size_t)size);
    if (!p)
      ompemu_error("emu", "device %d: out of host memory: request of %ld "
                   "bytes (kind host)", id, (long)size);
    break;
  default:
    ompemu_error("emu", "device %d: allocation kind %d is not supported", id,
                 kind);
    return NULL;
  }
  if (p && OMPEMU_TRACE_ON(2))
    ompemu_trace(2, "emu", "device %d: alloc %ld bytes (%s) at " OMPEMU_PTR
                 " for host " OMPEMU_PTR, id, (long)size, kind_name(kind),
                 OMPEMU_P(p), OMPEMU_P(hst));
  return p;
}

EMU_EXPORT int32_t __tgt_rtl_data_delete(int32_t id, void *tgt) {
  struct emu_device *d = emu_device_get(id, "data_delete");
  if (!d)
    return OFFLOAD_FAIL;
  if (arena_owns(d->data, tgt)) {
    if (arena_free(d->data, tgt) != 0)
      return OFFLOAD_FAIL;
  } else if (free_host(d, tgt) != 0) {
    ompemu_error("emu", "device %d: data_delete of " OMPEMU_PTR " refused: "
                 "it was not allocated by this device", id, OMPEMU_P(tgt));
    return OFFLOAD_FAIL;
  }
  if (OMPEMU_TRACE_ON(2))
    ompemu_trace(2, "emu", "device %d: free " OMPEMU_PTR, id, OMPEMU_P(tgt));
  return OFFLOAD_SUCCESS;
}

static int32_t copy(int32_t id, const char *op, void *dst, const void *src,
                    int64_t size, int to_device, __tgt_async_info *ai) {
  struct emu_device *d = emu_device_get(id, op);
  if (!d)
    return OFFLOAD_FAIL;
  void *tgt = to_device ? dst : (void *)src;
  const void *hst = to_device ? src : dst;
  if (size == 0)
    return OFFLOAD_SUCCESS;
  if (emu_check_copy(d, op, tgt, hst, size, to_device) != 0)
    return OFFLOAD_FAIL;
  if (!hst) {
    ompemu_error("emu", "device %d: %s of %ld bytes with a NULL host pointer "
                 "(device " OMPEMU_PTR ")", id, op, (long)size, OMPEMU_P(tgt));
    return OFFLOAD_FAIL;
  }
  if (OMPEMU_TRACE_ON(3))
    ompemu_trace(3, "emu", "device %d: %s %ld bytes host " OMPEMU_PTR " %s "
                 "device " OMPEMU_PTR "%s", id, op, (long)size, OMPEMU_P(hst),
                 to_device ? "->" : "<-", OMPEMU_P(tgt),
                 ai && to_device ? " (async)" : "");
  /* LLVM 14's runtime restores shadow pointers in the host copy of a struct
   * right after it asks for the struct's retrieval, before it synchronizes;
   * a retrieval still queued at that point would overwrite them.  So a
   * retrieval completes before returning: it waits for the queue (the
   * kernel it follows) and copies on this thread (in serial mode: on the
   * one worker, behind the queue's work).  A kernel on the queue that could
   * not start stays the queue's failure, which synchronize reports: the
   * copy itself is done. */
  if (!to_device && ai) {
    if (!emu_plugin()->exec.serial)
      (void)exec_drain(d->exec, emu_queue_of(ai), NULL);
    ai = NULL;
  }
  return exec_copy(d->exec, emu_queue_of(ai), dst, src, (size_t)size) == 0
             ? OFFLOAD_SUCCESS
             : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_data_submit(int32_t id, void *tgt, void *hst,
                                         int64_t size) {
  return copy(id, "data_submit", tgt, hst, size, 1, NULL);
}

EMU_EXPORT int32_t __tgt_rtl_data_retrieve(int32_t id, void *hst, void *tgt,
                                           int64_t size) {
  return copy(id, "data_retrieve", hst, tgt, size, 0, NULL);
}

EMU_EXPORT int32_t __tgt_rtl_data_submit_async(int32_t id, void *tgt,
                                               void *hst, int64_t size,
                                               __tgt_async_info *ai) {
  return copy(id, "data_submit", tgt, hst, size, 1, ai);
}

EMU_EXPORT int32_t __tgt_rtl_data_retrieve_async(int32_t id, void *hst,
                                                 void *tgt, int64_t size,
                                                 __tgt_async_info *ai) {
  return copy(id, "data_retrieve", hst, tgt, size, 0, ai);
}

EMU_EXPORT int32_t __tgt_rtl_is_data_exchangable(int32_t src, int32_t dst) {
  int n = emu_plugin()->ndevices;
  return src >= 0 && src < n && dst >= 0 && dst < n;
}

EMU_EXPORT int32_t __tgt_rtl_data_exchange_async(int32_t src_id, void *src,
                                                 int32_t dst_id, void *dst,
                                                 int64_t size,
                                                 __tgt_async_info *ai) {
  struct emu_device *s = emu_device_get(src_id, "data_exchange");
  struct emu_device *t = emu_device_get(dst_id, "data_exchange");
  if (!s || !t)
    return OFFLOAD_FAIL;
  if (size == 0)
    return OFFLOAD_SUCCESS;
  if (emu_check_copy(s, "data_exchange (source)", src, NULL, size, 0) != 0 ||
      emu_check_copy(t, "data_exchange (destination)", dst, NULL, size, 1) != 0)
    return OFFLOAD_FAIL;
  ompemu_trace(3, "emu", "device %d -> device %d: exchange %ld bytes "
               OMPEMU_PTR " -> " OMPEMU_PTR "%s", src_id, dst_id, (long)size,
               OMPEMU_P(src), OMPEMU_P(dst), ai ? " (async)" : "");
  return exec_copy(s->exec, emu_queue_of(ai), dst, src, (size_t)size) == 0
             ? OFFLOAD_SUCCESS
             : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_data_exchange(int32_t src_id, void *src,
                                           int32_t dst_id, void *dst,
                                           int64_t size) {
  return __tgt_rtl_data_exchange_async(src_id, src, dst_id, dst, size, NULL);
}

void emu_memory_before_kernel(struct emu_device *d, const void *entry,
                              void *const *args, const ptrdiff_t *offs,
                              int32_t n) {
  arena_settle(d->data);
  if (!emu_plugin()->check)
    return;
  for (int32_t i = 0; i < n; i++)
    arena_note_kernel(d->data, (char *)args[i] + (offs ? offs[i] : 0),
                      entry);
}

EMU_EXPORT int32_t __tgt_rtl_ompemu_poisoned_bytes(int32_t id, void *tgt,
                                                   int64_t size,
                                                   int64_t *count) {
  struct emu_device *d = emu_device_get(id, "ompemu_poisoned_bytes");
  if (!d || !count)
    return OFFLOAD_FAIL;
  size_t c = 0;
  if (size < 0 ||
      arena_poisoned_bytes(d->data, tgt, (size_t)size, &c) != 0) {
    ompemu_error("emu", "device %d: ompemu_poisoned_bytes of device ["
                 OMPEMU_PTR ", " OMPEMU_PTR ") refused: not inside one live "
                 "data block", id, OMPEMU_P(tgt),
                 OMPEMU_P((uintptr_t)tgt + (size > 0 ? (size_t)size : 0)));
    return OFFLOAD_FAIL;
  }
  *count = (int64_t)c;
  return OFFLOAD_SUCCESS;
}

EMU_EXPORT int32_t __tgt_rtl_ompemu_watch_unwritten(int32_t id, void *tgt,
                                                    int64_t size, int32_t on,
                                                    int64_t *first_read) {
  struct emu_device *d = emu_device_get(id, "ompemu_watch_unwritten");
  if (!d || size <= 0 || !emu_plugin()->check)
    return OFFLOAD_FAIL;
  int rc = on ? watch_start(on == 2 ? d->code : d->data, id, (uintptr_t)tgt,
                           (uintptr_t)size, on >= 2 ? on - 1 : 0)
              : watch_stop(id, (uintptr_t)tgt, first_read);
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

EMU_EXPORT int32_t __tgt_rtl_ompemu_note_pointers(int32_t id, const void *src,
                                                  int64_t size, uint64_t lo,
                                                  uint64_t span) {
  struct emu_device *d = emu_device_get(id, "ompemu_note_pointers");
  if (!d || !d->data || size < 0 || !emu_plugin()->check)
    return OFFLOAD_FAIL;
  if (src) {
    arena_note_pointers(d->data, src, (size_t)size, (uintptr_t)lo);
    return OFFLOAD_SUCCESS;
  }
  if (!arena_within(d->data, lo, span))
    return OFFLOAD_FAIL;
  __atomic_store_n(&d->runtime_notes, 1, __ATOMIC_RELAXED);
  return OFFLOAD_SUCCESS;
}
