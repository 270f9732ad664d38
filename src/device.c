/* Devices: lazy initialisation, loading of every image this device's plugin
 * claimed (also libraries registered after the device started), the host
 * address -> device address lookup for launches, and unloading a library. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

struct rt_device *rt_device_new(struct rt_plugin *p, int32_t id,
                                 int32_t local_id) {
  struct rt_device_core *c = calloc(1, sizeof *c);
  if (!c) {
    CORE_ERR("out of memory creating device %d", id);
    return NULL;
  }
  struct rt_device *d = &c->pub;
  d->id = id;
  d->local_id = local_id;
  d->plugin = p;
  pthread_mutex_init(&d->lock, NULL);
  pthread_mutex_init(&d->map_lock, NULL);
  return d;
}

struct rt_device *rt_device_get(int64_t id) {
  int32_t n = __atomic_load_n(&rt_state.num_devices, __ATOMIC_ACQUIRE);
  if (id < 0 || id >= n)
    return NULL;
  return rt_state.devices[id];
}

int rt_device_init(struct rt_device *d) {
  int state = __atomic_load_n(&d->state, __ATOMIC_ACQUIRE);
  if (state)
    return state == 1 ? 0 : -1;
  pthread_mutex_lock(&d->lock);
  if (!d->state) {
    struct rt_plugin *p = d->plugin;
    if (p->init_requires) {
      int64_t r = p->init_requires(rt_state.requires_flags);
      RT_TRACE(2, "device %d: init_requires(0x%lx) = %ld", d->id,
               (long)rt_state.requires_flags, (long)r);
    }
    int rc = p->init_device(d->local_id);
    RT_TRACE(1, "device %d: init (plugin %s, local id %d) %s", d->id, p->name,
             d->local_id, rc == OFFLOAD_SUCCESS ? "ready" : "FAILED");
    __atomic_store_n(&d->state, rc == OFFLOAD_SUCCESS ? 1 : -1,
                     __ATOMIC_RELEASE);
    rt_arm_exit_handler();
  }
  pthread_mutex_unlock(&d->lock);
  return d->state == 1 ? 0 : -1;
}

static struct rt_loaded *find_loaded(struct rt_device *d, struct rt_lib *l) {
  for (struct rt_loaded *x = d->loaded; x; x = x->next)
    if (x->lib == l)
      return x;
  return NULL;
}

/* Load image IMG of lib L on D (under rt_state.lock and d->lock). */
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
    CORE_ERR("out of memory loading %s on device %d", rt_lib_name(l), d->id);
    return -1;
  }
  x->lib = l;
  x->image = img;
  x->tgt = tgt;
  x->table = p->load_binary(d->local_id, img->image);
  if (!x->table && n == 0) {
    /* Nothing of an image without entries can be asked for: say so, and
     * let the device serve the other images. */
    CORE_ERR("plugin %s could not load image %d (" OMPEMU_PTR ") of %s on "
             "device %d; it has no entries, so nothing depends on it",
             p->name, img->index, OMPEMU_P(img->image->ImageStart),
             rt_lib_name(l), d->id);
    free(tgt);
    free(x);
    return 0;
  }
  if (!x->table) {
    rt_err("Unable to generate entries table for device id %d.", d->id);
    CORE_ERR("plugin %s could not load image %d (" OMPEMU_PTR ") of %s on "
             "device %d", p->name, img->index, OMPEMU_P(img->image->ImageStart),
             rt_lib_name(l), d->id);
    free(tgt);
    free(x);
    return -1;
  }
  RT_TRACE(1, "device %d: loaded image %d of %s (arch %s): %ld device "
           "entries", d->id, img->index, rt_lib_name(l),
           img->arch ? img->arch : "(unknown)",
           (long)(x->table->EntriesEnd - x->table->EntriesBegin));
  rt_pair_entries(d, x);
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
  pthread_mutex_lock(&rt_state.lock);
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
  pthread_mutex_unlock(&rt_state.lock);
  return rc;
}

int rt_device_prepare(struct rt_device *d) {
  if (!d || rt_device_init(d) != 0)
    return -1;
  return rt_device_load_pending(d);
}

void *rt_device_entry(struct rt_device *d, void *host_ptr, const char **name) {
  struct rt_lib *l;
  int idx;
  void *r = NULL;
  if (name)
    *name = NULL;
  /* The read lock alone: launches from many threads do not serialise. */
  rt_index_rdlock();
  if (rt_index_find_locked(host_ptr, &l, &idx) == 0) {
    if (name)
      *name = l->host_begin[idx].name;
    struct rt_loaded *x = find_loaded(d, l);
    if (x)
      r = x->tgt[idx];
  }
  rt_index_unlock();
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
