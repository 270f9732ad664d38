/* The OpenMP device memory routines (docs/abi-clang14.md section 3) behind
 * omp_target_alloc and the llvm_omp_target_alloc_* kinds, free,
 * is_present, memcpy, memcpy_rect, associate/disassociate, with LLVM 14's
 * return values and messages.  The host is device rt_num_devices(). */
#include "config.h"
#include "check_api.h"
#include "data.h"
#include "mapping.h"
#include "observe.h"
#include "trace.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device DEV, initialised and with its images loaded, or NULL (with
 * no message: each caller says what failed). */
static struct rt_device *ready_device(int dev) {
  if (dev < 0)
    return NULL;
  struct rt_device *d = rt_device_get(dev);
  if (!d || rt_device_prepare(d) != 0)
    return NULL;
  return d;
}

/* LLVM 14 returns NULL / does nothing without a word when the device
 * cannot be used; ompemu says it when the device exists. */
static void not_started(const char *what, int dev) {
  if (rt_device_get(dev))
    ompemu_error("ompemu", "%s: device %d could not be started", what, dev);
}

/* rt_err's message, then the call it is about:
 * "... (omp_target_associate_ptr at prog.c:12)". */
static void api_err(const char *api, const void *ra, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void api_err(const char *api, const void *ra, const char *fmt, ...) {
  char msg[512], call[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  check_api_call(api, ra, -1, call, sizeof call);
  rt_err("%s (%s)", msg, call);
}

void *rt_target_alloc(size_t size, int dev, int32_t kind, const char *api,
                      const void *ra) {
  if (size == 0)
    return NULL;
  if (dev == rt_num_devices()) {
    void *h = malloc(size);
    check_api_alloc(dev, h, size, api, ra);
    return h;
  }
  struct rt_device *d = ready_device(dev);
  if (!d) {
    not_started(api, dev);
    return NULL;
  }
  /* Beyond what the plugin interface carries (int64_t), the largest it
   * does: the device refuses it as it refuses every request larger than
   * its memory, with the same message. */
  int64_t want = size > (size_t)INT64_MAX ? INT64_MAX : (int64_t)size;
  void *p = rt_dev_alloc(d, want, NULL, kind);
  check_api_alloc(dev, p, size, api, ra);
  DTRACE(1, "device %d: %s(%zu, kind %d) = " OMPEMU_PTR, dev, api, size,
         (int)kind, OMPEMU_P(p));
  return p;
}

/* A mapping of D whose device copy holds P: the runtime owns that memory,
 * and freeing it would leave the mapping pointing at freed memory. */
struct owner {
  uintptr_t p;
  struct map_entry *hit;
};

static int holds(struct map_entry *e, void *arg) {
  struct owner *o = arg;
  if (e->kind == MAP_KIND_MAPPED && e->tgt_begin && o->p >= e->tgt_begin &&
      o->p < e->tgt_begin + (e->hst_end - e->hst_begin)) {
    o->hit = e;
    return 1;
  }
  return 0;
}

/* Refuse (and say why) to free P, the device copy of a mapped variable of
 * D: -1 then, else 0. */
static int refuse_mapped(struct rt_device *d, void *p, const char *api,
                         const void *ra) {
  struct owner o = {(uintptr_t)p, NULL};
  char nm[256], at[300], call[400];
  biaslock_lock(&d->map_lock);
  if (d->maps)
    map_foreach(d->maps, holds, &o);
  if (o.hit) {
    rt_name_str(o.hit->name, nm, sizeof nm);
    rt_name_loc_str(o.hit->name, at, sizeof at);
    char *col = strrchr(at, ':'); /* file:line, as messages cite lines */
    if (col && col != strchr(at, ':'))
      *col = '\0';
  }
  biaslock_unlock(&d->map_lock);
  if (!o.hit)
    return 0;
  check_api_call(api, ra, 0, call, sizeof call);
  if (o.hit->name)
    ompemu_error("ompemu", "%s: " OMPEMU_PTR " is the device copy of the "
                 "mapped variable %s (declared at %s), not memory from "
                 "omp_target_alloc: nothing done", call, OMPEMU_P(p), nm, at);
  else
    ompemu_error("ompemu", "%s: " OMPEMU_PTR " is the device copy of the "
                 "mapped host memory [" OMPEMU_PTR ", " OMPEMU_PTR "), not "
                 "memory from omp_target_alloc: nothing done", call,
                 OMPEMU_P(p), OMPEMU_P(o.hit->hst_begin),
                 OMPEMU_P(o.hit->hst_end));
  return -1;
}

void rt_target_free(void *device_ptr, int device_num, const char *api,
                    const void *ra) {
  if (!device_ptr)
    return;
  if (check_api_free(device_num, rt_num_devices(), device_ptr, api, ra))
    return;
  if (device_num == rt_num_devices()) {
    check_api_freed(device_ptr, api, ra);
    free(device_ptr);
    return;
  }
  struct rt_device *d = ready_device(device_num);
  if (!d) {
    not_started(api, device_num);
    return;
  }
  DTRACE(1, "device %d: %s(" OMPEMU_PTR ")", device_num, api,
         OMPEMU_P(device_ptr));
  if (refuse_mapped(d, device_ptr, api, ra))
    return;
  if (rt_dev_free(d, device_ptr)) {
    char call[400];
    check_api_call(api, ra, 0, call, sizeof call);
    ompemu_error("ompemu", "%s: " OMPEMU_PTR " is not memory "
                 "omp_target_alloc returned for device %d (or it was freed "
                 "before): nothing done", call, OMPEMU_P(device_ptr),
                 device_num);
  } else {
    check_api_freed(device_ptr, api, ra);
  }
}

int rt_target_is_present(const void *ptr, int device_num) {
  if (device_num == rt_num_devices())
    return 1;
  if (device_num < 0 || device_num >= rt_num_devices())
    return 0;
  struct rt_device *d = rt_device_get(device_num);
  if (!d)
    return 0;
  int is_host;
  void *t = rt_lookup_tgt(d, (void *)ptr, 0, 0, &is_host);
  return t != NULL && !(rt_usm() && is_host);
}

/* One copy between two devices or the host: 0 / -1.  DST_BASE and
 * SRC_BASE: the pointers the user passed (a _rect form copies row by row
 * from DST and SRC inside them; RECT set), for messages.  RECT 2: only
 * check (a _rect form checks every row before it copies any). */
static int memcpy_impl(void *dst, const void *src, size_t len, size_t dst_off,
                       size_t src_off, int dst_dev, int src_dev,
                       const void *dst_base, const void *src_base, int rect,
                       const char *api, const void *ra) {
  if (!dst || !src || len == 0) {
    if (len == 0)
      return OFFLOAD_SUCCESS;
    api_err(api, ra, "Call to %s with invalid arguments", api);
    return OFFLOAD_FAIL;
  }
  int host = rt_num_devices();
  struct rt_device *sd = NULL, *dd = NULL;
  if (check_api_memcpy(dst_base, src_base, dst_dev, src_dev, host, api, ra))
    return OFFLOAD_FAIL;
  if (src_dev != host && !(sd = ready_device(src_dev))) {
    api_err(api, ra, "%s returns OFFLOAD_FAIL", api);
    return OFFLOAD_FAIL;
  }
  if (dst_dev != host && !(dd = ready_device(dst_dev))) {
    api_err(api, ra, "%s returns OFFLOAD_FAIL", api);
    return OFFLOAD_FAIL;
  }
  char *s = (char *)src + src_off, *d = (char *)dst + dst_off;
  size_t soff = (size_t)(s - (const char *)src_base);
  size_t doff = (size_t)(d - (const char *)dst_base);
  if ((sd ? check_api_device_side("src", src_base, soff, len, rect, sd,
                                  src_dev, api, ra)
          : check_api_host_side("src", src_base, soff, len, rect, host, api,
                                ra)) ||
      (dd ? check_api_device_side("dst", dst_base, doff, len, rect, dd,
                                  dst_dev, api, ra)
          : check_api_host_side("dst", dst_base, doff, len, rect, host, api,
                                ra)))
    return OFFLOAD_FAIL;
  if (rect == 2)
    return OFFLOAD_SUCCESS;
  int rc = 0;
  DTRACE(2, "%s " OMPEMU_PTR " (device %d) -> " OMPEMU_PTR
           " (device %d), %zu bytes", api, OMPEMU_P(s), src_dev, OMPEMU_P(d),
           dst_dev, len);
  if (!sd && !dd) {
    memcpy(d, s, len);
  } else if (!sd) {
    rc = rt_dev_submit(dd, d, s, (int64_t)len, NULL);
  } else if (!dd) {
    rc = rt_dev_retrieve(sd, d, s, (int64_t)len, NULL);
  } else {
    struct rt_plugin *p = sd->plugin;
    if (p == dd->plugin && p->is_data_exchangable && p->data_exchange &&
        p->is_data_exchangable(sd->local_id, dd->local_id) &&
        p->data_exchange(sd->local_id, s, dd->local_id, d, (int64_t)len) ==
            OFFLOAD_SUCCESS)
      return OFFLOAD_SUCCESS;
    void *buf = malloc(len);
    if (!buf) {
      api_err(api, ra, "%s: out of memory for a %zu-byte bounce buffer "
              "from device %d to device %d", api, len, src_dev, dst_dev);
      return OFFLOAD_FAIL;
    }
    rc = rt_dev_retrieve(sd, buf, s, (int64_t)len, NULL);
    if (rc == 0)
      rc = rt_dev_submit(dd, d, buf, (int64_t)len, NULL);
    free(buf);
  }
  if (rc != 0) {
    char call[400];
    check_api_call(api, ra, -1, call, sizeof call);
    ompemu_error("ompemu", "%s: copying %zu bytes from src " OMPEMU_PTR
                 " (src_device_num %d) to dst " OMPEMU_PTR
                 " (dst_device_num %d) failed", call, len, OMPEMU_P(s),
                 src_dev, OMPEMU_P(d), dst_dev);
  }
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

int rt_target_memcpy(void *dst, const void *src, size_t length,
                     size_t dst_offset, size_t src_offset, int dst_device_num,
                     int src_device_num, const char *api, const void *ra) {
  return memcpy_impl(dst, src, length, dst_offset, src_offset, dst_device_num,
                     src_device_num, dst, src, 0, api, ra);
}

static int memcpy_rect(void *dst, const void *src, size_t elem, int ndims,
                       const size_t *volume, const size_t *dst_offsets,
                       const size_t *src_offsets, const size_t *dst_dims,
                       const size_t *src_dims, int dst_dev, int src_dev,
                       const void *dst_base, const void *src_base,
                       int check_only, const char *api, const void *ra) {
  if (ndims == 1)
    return memcpy_impl(dst, src, elem * volume[0], elem * dst_offsets[0],
                       elem * src_offsets[0], dst_dev, src_dev, dst_base,
                       src_base, check_only ? 2 : 1, api, ra);
  size_t dslice = elem, sslice = elem;
  for (int i = 1; i < ndims; i++) {
    dslice *= dst_dims[i];
    sslice *= src_dims[i];
  }
  size_t doff = dst_offsets[0] * dslice, soff = src_offsets[0] * sslice;
  for (size_t i = 0; i < volume[0]; i++) {
    int rc = memcpy_rect((char *)dst + doff + dslice * i,
                         (const char *)src + soff + sslice * i, elem, ndims - 1,
                         volume + 1, dst_offsets + 1, src_offsets + 1,
                         dst_dims + 1, src_dims + 1, dst_dev, src_dev,
                         dst_base, src_base, check_only, api, ra);
    if (rc)
      return rc;
  }
  return OFFLOAD_SUCCESS;
}

int rt_target_memcpy_rect(
    void *dst, const void *src, size_t element_size, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions,
    int dst_device_num, int src_device_num, const char *api, const void *ra) {
  if (!dst && !src)
    return INT_MAX;
  if (!dst || !src || element_size < 1 || num_dims < 1 || !volume ||
      !dst_offsets || !src_offsets || !dst_dimensions || !src_dimensions) {
    api_err(api, ra, "Call to %s with invalid arguments", api);
    return OFFLOAD_FAIL;
  }
  /* Every row checked first: a refused copy copies nothing. */
  for (int check_only = 1; check_only >= 0; check_only--) {
    int rc = memcpy_rect(dst, src, element_size, num_dims, volume,
                         dst_offsets, src_offsets, dst_dimensions,
                         src_dimensions, dst_device_num, src_device_num, dst,
                         src, check_only, api, ra);
    if (rc != OFFLOAD_SUCCESS)
      return rc;
  }
  return OFFLOAD_SUCCESS;
}

int rt_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                            size_t size, size_t device_offset,
                            int device_num, const void *ra) {
  const char *api = "omp_target_associate_ptr";
  if (!host_ptr || !device_ptr || size == 0 || (int64_t)size < 0) {
    api_err(api, ra, "Call to omp_target_associate_ptr with invalid arguments");
    return OFFLOAD_FAIL;
  }
  if (device_num == rt_num_devices()) {
    api_err(api, ra, "omp_target_associate_ptr: no association possible on the host");
    return OFFLOAD_FAIL;
  }
  struct rt_device *d = ready_device(device_num);
  if (!d) {
    api_err(api, ra, "omp_target_associate_ptr returns OFFLOAD_FAIL");
    return OFFLOAD_FAIL;
  }
  if (check_api_associate(device_ptr, device_offset, size, device_num, api,
                          ra))
    return OFFLOAD_FAIL;
  uintptr_t h = (uintptr_t)host_ptr;
  uintptr_t t = (uintptr_t)device_ptr + device_offset;
  int rc = OFFLOAD_SUCCESS;
  biaslock_lock(&d->map_lock);
  struct map_table *tab = map_table_of(d);
  struct map_lookup lr;
  map_lookup(tab, h, (int64_t)size, &lr);
  if (lr.entry && lr.entry->hst_begin == h) {
    if (!(lr.entry->hst_end == h + size && lr.entry->tgt_begin == t)) {
      api_err(api, ra, "Not allowed to re-associate a different device ptr+offset with "
             "the same host ptr");
      rc = OFFLOAD_FAIL;
    }
  } else if (lr.entry) {
    api_err(api, ra, "omp_target_associate_ptr: host [" OMPEMU_PTR ", " OMPEMU_PTR
           ") overlaps the mapping of host [" OMPEMU_PTR ", " OMPEMU_PTR ")",
           OMPEMU_P(h), OMPEMU_P(h + size), OMPEMU_P(lr.entry->hst_begin),
           OMPEMU_P(lr.entry->hst_end));
    rc = OFFLOAD_FAIL;
  } else if (!tab || !map_insert(tab, h, h, h + size, t, NULL, MAP_REF_INF, 0,
                                 MAP_KIND_ASSOC)) {
    rc = OFFLOAD_FAIL;
  } else {
    DTRACE(1, "device %d: associate host [" OMPEMU_PTR ", " OMPEMU_PTR
             ") with device " OMPEMU_PTR " (refcount INF)", device_num,
             OMPEMU_P(h), OMPEMU_P(h + size), OMPEMU_P(t));
    OBS_MAP(d, OBS_MAP_ASSOC, h, t, (int64_t)size, NULL, MAP_REF_INF, 0, 0);
  }
  biaslock_unlock(&d->map_lock);
  return rc;
}

int rt_target_disassociate_ptr(const void *host_ptr, int device_num,
                               const void *ra) {
  const char *api = "omp_target_disassociate_ptr";
  if (!host_ptr) {
    api_err(api, ra, "Call to omp_target_associate_ptr with invalid host_ptr");
    return OFFLOAD_FAIL;
  }
  if (device_num == rt_num_devices()) {
    api_err(api, ra, "omp_target_disassociate_ptr: no association possible on the host");
    return OFFLOAD_FAIL;
  }
  struct rt_device *d = ready_device(device_num);
  if (!d) {
    api_err(api, ra, "omp_target_disassociate_ptr returns OFFLOAD_FAIL");
    return OFFLOAD_FAIL;
  }
  int rc = OFFLOAD_FAIL;
  biaslock_lock(&d->map_lock);
  struct map_lookup lr;
  map_lookup_ready(d->maps, &d->map_lock, (uintptr_t)host_ptr, 0, &lr);
  struct map_entry *e = lr.contained ? lr.entry : NULL;
  if (!e || e->hst_begin != (uintptr_t)host_ptr) {
    api_err(api, ra, "Association not found");
  } else if (e->hold_ref) {
    api_err(api, ra, "Trying to disassociate a pointer with a non-zero hold reference "
           "count");
  } else if (e->dyn_ref == MAP_REF_INF) {
    DTRACE(1, "device %d: disassociate host " OMPEMU_PTR, device_num,
             OMPEMU_P(host_ptr));
    OBS_MAP(d, OBS_MAP_DISASSOC, e->hst_begin, e->tgt_begin,
            (int64_t)(e->hst_end - e->hst_begin), NULL, 0, 0, 0);
    map_remove(d->maps, e);
    rc = OFFLOAD_SUCCESS;
  } else {
    api_err(api, ra, "Trying to disassociate a pointer which was not mapped via "
           "omp_target_associate_ptr");
  }
  biaslock_unlock(&d->map_lock);
  return rc;
}
