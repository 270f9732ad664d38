/* Devices: creation and destruction, lazy initialisation, loading of every
 * image this device's plugin claimed (also libraries registered after the
 * device started), the host address -> device address lookup for
 * launches (with a per-thread cache), and unloading a library. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

struct rt_device *rt_device_new(struct rt_plugin *p, int32_t id,
                                 int32_t local_id) {
  struct rt_device_core *c = calloc(1, sizeof *c);
  if (!c) {
    ompemu_error("ompemu", "out of memory creating device %d (plugin %s)", id,
                 p->name);
    return NULL;
  }
  struct rt_device *d = &c->pub;
  d->id = id;
  d->local_id = local_id;
  d->plugin = p;
  pthread_mutex_init(&d->lock, NULL);
  biaslock_init(&d->map_lock);
  return d;
}

struct rt_device *rt_device_get(int64_t id) {
  if (id < 0 || id >= rt_num_devices())
    return NULL;
  /* The array may be replaced by a larger copy (plugin_loader.c); an old
   * one stays valid until exit. */
  return __atomic_load_n(&rt_state.devices, __ATOMIC_ACQUIRE)[id];
}

void rt_device_destroy(struct rt_device *d) {
  if (!d)
    return;
  struct rt_device_core *c = core_of(d);
  while (d->loaded) { /* nothing is left loaded at exit; just in case */
    struct rt_loaded *x = d->loaded;
    d->loaded = x->next;
    free(x->tgt);
    free(x);
  }
  rt_unmap_all(d);
  free(c->fptr);
  pthread_mutex_destroy(&d->lock);
  biaslock_destroy(&d->map_lock);
  free(c);
}

int rt_device_init(struct rt_device *d, int *fresh) {
  enum rt_device_state state = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
  *fresh = 0;
  if (state != RT_DEVICE_NEW)
    return state == RT_DEVICE_READY ? 0 : -1;
  pthread_mutex_lock(&d->lock);
  if (d->state == RT_DEVICE_NEW) {
    struct rt_plugin *p = d->plugin;
    if (p->init_requires) {
      int64_t r = p->init_requires(rt_state.requires_flags);
      RT_TRACE(2, "device %d: init_requires(0x%lx) = %ld", d->id,
               (long)rt_state.requires_flags, (long)r);
    }
    int rc = p->init_device(d->local_id);
    RT_TRACE(1, "device %d: init (plugin %s, local id %d) %s", d->id, p->name,
             d->local_id, rc == OFFLOAD_SUCCESS ? "ready" : "FAILED");
    __atomic_store_n(&d->state,
                     rc == OFFLOAD_SUCCESS ? RT_DEVICE_READY : RT_DEVICE_FAILED,
                     __ATOMIC_RELEASE);
    *fresh = 1;
  }
  state = d->state;
  pthread_mutex_unlock(&d->lock);
  return state == RT_DEVICE_READY ? 0 : -1;
}

static struct rt_loaded *find_loaded(struct rt_device *d, struct rt_lib *l) {
  for (struct rt_loaded *x = d->loaded; x; x = x->next)
    if (x->lib == l)
      return x;
  return NULL;
}

/* Load image IMG of lib L on D (under the state lock and d->lock). */
static int load_image(struct rt_device *d, struct rt_lib *l,
                      struct rt_image *img) {
  struct rt_plugin *p = d->plugin;
  if (l->host_begin == l->host_end &&
      !(p->supports_empty_images && p->supports_empty_images() > 0)) {
    RT_TRACE(2, "device %d: image %d of %s has no entries: not loaded", d->id,
             img->index, rt_lib_name(l));
    return 0;
  }
  size_t n = (size_t)(l->host_end - l->host_begin);
  struct rt_loaded *x = calloc(1, sizeof *x);
  void **tgt = calloc(n ? n : 1, sizeof *tgt);
  if (!x || !tgt) {
    free(x);
    free(tgt);
    ompemu_error("ompemu", "out of memory loading image %d of %s on device %d",
                 img->index, rt_lib_name(l), d->id);
    return -1;
  }
  x->lib = l;
  x->image = img;
  x->tgt = tgt;
  x->table = p->load_binary(d->local_id, img->image);
  if (!x->table && n == 0) {
    /* Nothing of an image without entries can be asked for: say so, and
     * let the device serve the other images. */
    ompemu_warning("ompemu", "plugin %s could not load image %d (" OMPEMU_PTR
                   ") of %s on device %d; it has no entries, so nothing "
                   "depends on it", p->name, img->index,
                   OMPEMU_P(img->image->ImageStart), rt_lib_name(l), d->id);
    free(tgt);
    free(x);
    return 0;
  }
  if (!x->table) {
    /* LLVM 14's line; the plugin has said why. */
    RT_TRACE(1, "device %d: plugin %s could not load image %d (" OMPEMU_PTR
             ") of %s", d->id, p->name, img->index,
             OMPEMU_P(img->image->ImageStart), rt_lib_name(l));
    rt_err("Unable to generate entries table for device id %d.", d->id);
    free(tgt);
    free(x);
    return -1;
  }
  RT_TRACE(1, "device %d: loaded image %d of %s (arch %s): %ld device "
           "entries", d->id, img->index, rt_lib_name(l),
           img->arch ? img->arch : "(unknown)",
           (long)(x->table->EntriesEnd - x->table->EntriesBegin));
  if (rt_pair_entries(d, x) != 0) {
    free(tgt);
    free(x);
    return -1;
  }
  /* Link it before mapping so a failure can be unwound by unload. */
  rt_index_wrlock();
  x->next = d->loaded;
  d->loaded = x;
  rt_index_unlock();
  if (rt_globals_map(d, x) != 0)
    return -1;
  if (rt_run_ctors(d, x) != 0)
    return -1;
  return 0;
}

int rt_device_load_pending(struct rt_device *d) {
  struct rt_device_core *c = core_of(d);
  unsigned gen = atomic_load(&rt_libs_gen);
  if (__atomic_load_n(&c->synced_gen, __ATOMIC_ACQUIRE) == gen)
    return 0;
  int rc = 0, changed = 0;
  rt_state_lock();
  pthread_mutex_lock(&d->lock);
  gen = atomic_load(&rt_libs_gen);
  if (c->synced_gen != gen) {
    for (struct rt_lib *l = rt_state.libs; l; l = l->next) {
      if (find_loaded(d, l))
        continue;
      for (int i = 0; i < l->nimages; i++) {
        if (l->images[i].plugin != d->plugin)
          continue;
        changed = 1;
        if (load_image(d, l, &l->images[i]) != 0)
          rc = -1;
      }
    }
    if (changed && rt_fptr_update(d) != 0)
      rc = -1;
    if (rc == 0)
      __atomic_store_n(&c->synced_gen, gen, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&d->lock);
  rt_state_unlock();
  return rc;
}

/* The kernels a thread launched last, found without a lock: valid while
 * no library was registered or unregistered (rt_libs_gen; a library is
 * unloaded from a device only when it is unregistered). */
#define ENTRY_CACHE 8
static __thread struct {
  unsigned gen;
  struct {
    void *host;
    struct rt_device *d;
    void *tgt;
    const char *name;
  } slot[ENTRY_CACHE];
} entry_cache;

void *rt_device_entry(struct rt_device *d, void *host_ptr, const char **name) {
  struct rt_lib *l;
  int idx;
  void *r = NULL;
  const char *nm = NULL;
  /* One thread-local look-up (the empty asm keeps GCC from repeating it). */
  __typeof__(entry_cache) *c = &entry_cache;
  __asm__("" : "+r"(c));
  unsigned gen = atomic_load_explicit(&rt_libs_gen, memory_order_acquire);
  unsigned h = (unsigned)(((uintptr_t)host_ptr >> 3) ^
                          ((uintptr_t)host_ptr >> 9)) % ENTRY_CACHE;
  if (c->gen == gen && c->slot[h].host == host_ptr &&
      c->slot[h].d == d) {
    if (name)
      *name = c->slot[h].name;
    return c->slot[h].tgt;
  }
  /* The read lock alone: launches from many threads do not serialise. */
  rt_index_rdlock();
  if (rt_index_find_locked(host_ptr, &l, &idx) == 0) {
    nm = l->host_begin[idx].name;
    struct rt_loaded *x = find_loaded(d, l);
    if (x)
      r = x->tgt[idx];
  }
  rt_index_unlock();
  if (name)
    *name = nm;
  if (r) {
    if (c->gen != gen) {
      memset(c->slot, 0, sizeof c->slot);
      c->gen = gen;
    }
    c->slot[h].host = host_ptr;
    c->slot[h].d = d;
    c->slot[h].tgt = r;
    c->slot[h].name = nm;
  }
  return r;
}

void rt_device_unload_lib(struct rt_device *d, struct rt_lib *l) {
  pthread_mutex_lock(&d->lock);
  struct rt_loaded **pp = &d->loaded;
  while (*pp && (*pp)->lib != l)
    pp = &(*pp)->next;
  struct rt_loaded *x = *pp;
  if (x) {
    RT_TRACE(1, "device %d: unloading %s", d->id, rt_lib_name(l));
    rt_run_dtors(d, x);
    rt_globals_unmap(d, x);
    rt_index_wrlock();
    *pp = x->next;
    rt_index_unlock();
    free(x->tgt);
    free(x);
    rt_fptr_update(d);
  }
  pthread_mutex_unlock(&d->lock);
}

int rt_print_device_info(int64_t device_id) {
  struct rt_device *d = rt_device_get(device_id);
  if (!d || !d->plugin->print_device_info)
    return 0;
  d->plugin->print_device_info(d->local_id);
  return 1;
}
