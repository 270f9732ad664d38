/* Registration of offloading libraries: __tgt_register_requires,
 * __tgt_register_image_info, __tgt_register_lib / __tgt_unregister_lib (any
 * number of libraries, any order), which plugin claims which image, the
 * process-wide index host entry address -> (library, entry index), the
 * library constructor that reads LIBOMPTARGET_INFO, and the exit handler
 * that unregisters what is left while the plugins are still alive. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"
#include <ompemu/omptarget.h>

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rt_state rt_state = {
    .lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
    .requires_flags = OMP_REQ_UNDEFINED,
};
_Atomic unsigned rt_libs_gen = 1;
static int rt_exiting; /* process exit started */

/* Image infos registered before the next __tgt_register_lib (seed:
 * one call per image, before the library); under rt_state.lock. */
static char **pending_arch;
static int npending_arch;

/* The index: sorted by addr; protected by rt_index_lock. */
struct index_row {
  void *addr;
  struct rt_lib *lib;
  int idx;
};
static pthread_rwlock_t rt_index_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct index_row *index_rows;
static size_t index_n;

__attribute__((constructor(101))) static void rt_init(void) {
  const char *s = getenv("LIBOMPTARGET_INFO");
  if (s && *s) {
    /* Decimal, leading digits only, as LLVM 14's std::stoi reads it; where
     * stoi throws (no digits) LLVM aborts, and we report it and use 0. */
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno || v < INT32_MIN || v > UINT32_MAX) {
      fprintf(stderr, "ompemu: error: LIBOMPTARGET_INFO='%s' ignored: not a "
                      "decimal number\n", s);
      v = 0;
    }
    rt_state.info_flags = (uint32_t)v;
  }
  /* LIBOMPTARGET_MAP_FORCE_ATOMIC is only checked (LLVM 14's warning):
   * ompemu always behaves as "true": copies to and from mapped entries
   * are made under the device's map_lock. */
  s = getenv("LIBOMPTARGET_MAP_FORCE_ATOMIC");
  if (s && strcmp(s, "true") && strcmp(s, "TRUE") && strcmp(s, "false") &&
      strcmp(s, "FALSE"))
    fprintf(stderr, "Warning: 'LIBOMPTARGET_MAP_FORCE_ATOMIC' accepts only "
                    "'true'/'TRUE' or 'false'/'FALSE' as options, '%s' "
                    "ignored\n", s);
}

const char *rt_entry_kind(const __tgt_offload_entry *e) {
  if (e->flags & OMP_DECLARE_TARGET_FPTR)
    return "fptr";
  if (e->flags & OMP_DECLARE_TARGET_CTOR)
    return "ctor";
  if (e->flags & OMP_DECLARE_TARGET_DTOR)
    return "dtor";
  if (e->flags & OMP_DECLARE_TARGET_LINK)
    return "global link";
  return e->size ? "global to" : "kernel";
}

static const char *requires_clause(int64_t bit) {
  switch (bit) {
  case OMP_REQ_REVERSE_OFFLOAD: return "reverse_offload";
  case OMP_REQ_UNIFIED_ADDRESS: return "unified_address";
  default: return "unified_shared_memory";
  }
}

RT_EXPORT void __tgt_register_requires(int64_t flags) {
  pthread_mutex_lock(&rt_state.lock);
  RT_TRACE(1, "register requires 0x%03" PRIx64, (uint64_t)flags);
  if (rt_state.requires_flags == OMP_REQ_UNDEFINED) {
    rt_state.requires_flags = flags;
    pthread_mutex_unlock(&rt_state.lock);
    return;
  }
  static const int64_t checked[] = {OMP_REQ_REVERSE_OFFLOAD,
                                    OMP_REQ_UNIFIED_ADDRESS,
                                    OMP_REQ_UNIFIED_SHARED_MEMORY};
  for (size_t i = 0; i < sizeof checked / sizeof checked[0]; i++)
    if ((rt_state.requires_flags & checked[i]) != (flags & checked[i]))
      rt_fatal(1, "'#pragma omp requires %s' not used consistently!",
               requires_clause(checked[i]));
  pthread_mutex_unlock(&rt_state.lock);
}

RT_EXPORT void __tgt_register_image_info(__tgt_image_info *info) {
  if (!info)
    return;
  pthread_mutex_lock(&rt_state.lock);
  int n = info->number_images > 0 ? info->number_images : 1;
  int i = info->image_number;
  if (i < 0 || i >= n || n > 65536) {
    CORE_ERR("image info " OMPEMU_PTR " has image %d of %d: ignored",
             OMPEMU_P(info), i, n);
    pthread_mutex_unlock(&rt_state.lock);
    return;
  }
  if (n > npending_arch) {
    char **a = realloc(pending_arch, (size_t)n * sizeof *a);
    if (!a) {
      pthread_mutex_unlock(&rt_state.lock);
      return;
    }
    memset(a + npending_arch, 0, (size_t)(n - npending_arch) * sizeof *a);
    pending_arch = a;
    npending_arch = n;
  }
  free(pending_arch[i]);
  pending_arch[i] = info->offload_arch ? strdup(info->offload_arch) : NULL;
  RT_TRACE(2, "image info: image %d of %d, arch %s", i, n,
           info->offload_arch ? info->offload_arch : "(none)");
  pthread_mutex_unlock(&rt_state.lock);
}

/* Rebuild the host-entry index from all registered libraries. */
static int index_cmp(const void *a, const void *b) {
  const struct index_row *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}
static void index_rebuild(void) {
  size_t n = 0;
  for (struct rt_lib *l = rt_state.libs; l; l = l->next)
    n += (size_t)(l->host_end - l->host_begin);
  struct index_row *rows = n ? malloc(n * sizeof *rows) : NULL;
  if (n && !rows) {
    CORE_ERR("out of memory indexing %zu host entries", n);
    n = 0;
  }
  size_t k = 0;
  for (struct rt_lib *l = rt_state.libs; l && rows; l = l->next)
    for (__tgt_offload_entry *e = l->host_begin; e < l->host_end; e++)
      rows[k++] = (struct index_row){e->addr, l, (int)(e - l->host_begin)};
  if (rows)
    qsort(rows, n, sizeof *rows, index_cmp);
  pthread_rwlock_wrlock(&rt_index_lock);
  free(index_rows);
  index_rows = rows;
  index_n = n;
  pthread_rwlock_unlock(&rt_index_lock);
}

void rt_index_rdlock(void) { pthread_rwlock_rdlock(&rt_index_lock); }
void rt_index_wrlock(void) { pthread_rwlock_wrlock(&rt_index_lock); }
void rt_index_unlock(void) { pthread_rwlock_unlock(&rt_index_lock); }

int rt_index_find_locked(void *host_ptr, struct rt_lib **lib, int *idx) {
  int rc = -1;
  size_t lo = 0, hi = index_n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (index_rows[mid].addr < host_ptr)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* Several entries may share an address (none in practice): prefer the
   * latest registered, i.e. any; take the first. */
  if (lo < index_n && index_rows[lo].addr == host_ptr) {
    *lib = index_rows[lo].lib;
    *idx = index_rows[lo].idx;
    rc = 0;
  }
  return rc;
}

int rt_index_find(void *host_ptr, struct rt_lib **lib, int *idx) {
  pthread_rwlock_rdlock(&rt_index_lock);
  int rc = rt_index_find_locked(host_ptr, lib, idx);
  pthread_rwlock_unlock(&rt_index_lock);
  return rc;
}

/* ELF machine of an image, or -1 if it is not ELF. */
static int image_machine(const __tgt_device_image *img) {
  const unsigned char *p = img->ImageStart;
  if (!p || (const char *)img->ImageEnd - (const char *)p < 20 ||
      memcmp(p, "\177ELF", 4))
    return -1;
  return p[18] | p[19] << 8;
}

/* Choose the plugin for image IMG of lib L: the first plugin, in load
 * order, whose device kind does not contradict the image's arch, that has
 * not yet claimed an image of L, and whose is_valid_binary accepts it. */
static void claim_image(struct rt_lib *l, struct rt_image *img) {
  const char *akind = rt_arch_kind(img->arch);
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next) {
    const char *pkind = rt_plugin_kind(p);
    if (akind && pkind && strcmp(akind, pkind)) {
      RT_TRACE(2, "  image %d (arch %s) is for %s devices: not offered to "
               "plugin %s", img->index, img->arch, akind, p->name);
      continue;
    }
    int taken = 0;
    for (int j = 0; j < l->nimages; j++)
      if (&l->images[j] != img && l->images[j].plugin == p)
        taken = 1;
    if (taken)
      continue;
    if (!p->is_valid_binary(img->image)) {
      RT_TRACE(2, "  image %d: plugin %s says it is not its binary",
               img->index, p->name);
      continue;
    }
    img->plugin = p;
    RT_TRACE(1, "  image %d claimed by plugin %s", img->index, p->name);
    return;
  }
  RT_TRACE(1, "  image %d: no plugin can run it", img->index);
}

int rt_plugin_use(struct rt_plugin *p) {
  if (p->used)
    return 0;
  int32_t n0 = rt_state.num_devices;
  for (int32_t i = 0; i < p->num_devices; i++) {
    struct rt_device *d = rt_device_new(p, n0 + i, i);
    if (!d)
      return -1;
    rt_state.devices[n0 + i] = d;
  }
  p->first_id = n0;
  p->used = 1;
  __atomic_store_n(&rt_state.num_devices, n0 + p->num_devices, __ATOMIC_RELEASE);
  RT_TRACE(1, "plugin %s in use: global device ids %d..%d", p->name, n0,
           n0 + p->num_devices - 1);
  return 0;
}

static char *object_name(const void *addr) {
  Dl_info info;
  if (dladdr(addr, &info) && info.dli_fname && *info.dli_fname)
    return strdup(info.dli_fname);
  char buf[64];
  snprintf(buf, sizeof buf, "descriptor@" OMPEMU_PTR, OMPEMU_P(addr));
  return strdup(buf);
}

static void exit_handler(void) {
  pthread_mutex_lock(&rt_state.lock);
  if (!rt_exiting) {
    RT_TRACE(1, "process exit: unregistering the remaining libraries");
    /* Reverse registration order, while every plugin is still alive. */
    while (rt_state.libs) {
      struct rt_lib *last = rt_state.libs;
      while (last->next)
        last = last->next;
      __tgt_unregister_lib(last->desc);
    }
    rt_exiting = 1;
  }
  pthread_mutex_unlock(&rt_state.lock);
}

/* atexit handlers run last-registered first: re-registering after a plugin
 * was loaded or a device initialised (both may register their own exit
 * work) keeps ours ahead of theirs.  Bounded, since each costs a slot. */
void rt_arm_exit_handler(void) {
  static int armed;
  if (armed < 64 && atexit(exit_handler) == 0)
    armed++;
}

RT_EXPORT void __tgt_register_lib(__tgt_bin_desc *desc) {
  if (!desc)
    return;
  pthread_mutex_lock(&rt_state.lock);
  if (rt_exiting) {
    pthread_mutex_unlock(&rt_state.lock);
    return;
  }
  for (struct rt_lib *l = rt_state.libs; l; l = l->next)
    if (l->desc == desc) {
      RT_TRACE(1, "descriptor " OMPEMU_PTR " is already registered",
               OMPEMU_P(desc));
      pthread_mutex_unlock(&rt_state.lock);
      return;
    }
  if (!rt_state.plugins_loaded && rt_offload_policy() != 0) {
    rt_load_plugins();
    rt_arm_exit_handler();
  }
  struct rt_lib_core *lc = calloc(1, sizeof *lc);
  struct rt_lib *l = &lc->pub;
  int n = desc->NumDeviceImages > 0 ? desc->NumDeviceImages : 0;
  l->images = n ? calloc((size_t)n, sizeof *l->images) : NULL;
  if (!lc || (n && !l->images)) {
    CORE_ERR("out of memory registering descriptor " OMPEMU_PTR, OMPEMU_P(desc));
    free(lc);
    pthread_mutex_unlock(&rt_state.lock);
    return;
  }
  l->desc = desc;
  l->nimages = n;
  l->host_begin = desc->HostEntriesBegin;
  l->host_end = desc->HostEntriesEnd;
  if (!l->host_begin || l->host_end < l->host_begin)
    l->host_begin = l->host_end = NULL;
  lc->name = object_name(desc);
  RT_TRACE(1, "register lib %s: descriptor " OMPEMU_PTR ", %d image(s), %ld "
           "host entries", lc->name, OMPEMU_P(desc), n,
           (long)(l->host_end - l->host_begin));
  for (int i = 0; i < n; i++) {
    struct rt_image *img = &l->images[i];
    img->lib = l;
    img->index = i;
    img->image = &desc->DeviceImages[i];
    if (npending_arch == n && pending_arch[i]) {
      img->arch = pending_arch[i];
      pending_arch[i] = NULL;
    }
    RT_TRACE(1, "  image %d: arch %s, " OMPEMU_PTR "..+%ld bytes, e_machine %d",
             i, img->arch ? img->arch : "(unknown)",
             OMPEMU_P(img->image->ImageStart),
             (long)((char *)img->image->ImageEnd -
                    (char *)img->image->ImageStart),
             image_machine(img->image));
  }
  for (int i = 0; i < npending_arch; i++)
    free(pending_arch[i]);
  free(pending_arch);
  pending_arch = NULL;
  npending_arch = 0;
  if (OMPEMU_TRACE_ON(1))
    for (__tgt_offload_entry *e = l->host_begin; e < l->host_end; e++)
      RT_TRACE(1, "  host entry %ld: %-12s " OMPEMU_PTR " size %zu  %s",
               (long)(e - l->host_begin), rt_entry_kind(e), OMPEMU_P(e->addr),
               e->size, e->name ? e->name : "(null)");
  for (int i = 0; i < n; i++)
    claim_image(l, &l->images[i]);
  /* Device ids are handed out in plugin order to the plugins that claimed
   * an image (LLVM 14: only plugins in use have devices). */
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    for (int i = 0; i < n; i++)
      if (l->images[i].plugin == p) {
        rt_plugin_use(p);
        break;
      }
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    if (p->register_lib)
      p->register_lib(desc);
  struct rt_lib **tail = &rt_state.libs;
  while (*tail)
    tail = &(*tail)->next;
  *tail = l;
  index_rebuild();
  atomic_fetch_add(&rt_libs_gen, 1);
  pthread_mutex_unlock(&rt_state.lock);
}

RT_EXPORT void __tgt_unregister_lib(__tgt_bin_desc *desc) {
  pthread_mutex_lock(&rt_state.lock);
  struct rt_lib **pp = &rt_state.libs;
  while (*pp && (*pp)->desc != desc)
    pp = &(*pp)->next;
  struct rt_lib *l = *pp;
  if (!l || rt_exiting) {
    pthread_mutex_unlock(&rt_state.lock);
    return;
  }
  RT_TRACE(1, "unregister lib %s: descriptor " OMPEMU_PTR, rt_lib_name(l),
           OMPEMU_P(desc));
  int32_t nd = rt_state.num_devices;
  for (int32_t i = 0; i < nd; i++)
    rt_device_unload_lib(rt_state.devices[i], l);
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    if (p->used && p->unregister_lib)
      p->unregister_lib(desc);
  *pp = l->next;
  index_rebuild();
  atomic_fetch_add(&rt_libs_gen, 1);
  for (int i = 0; i < l->nimages; i++)
    free((char *)l->images[i].arch);
  free(l->images);
  free(((struct rt_lib_core *)l)->name);
  free(l);
  pthread_mutex_unlock(&rt_state.lock);
}
