/* The emu device runtime (see devicertl.h): the functions device images
 * bind to instead of the process's, the thread-local device context, and
 * the registry of loaded images that __kmpc_target_translate_fptr uses.
 *
 * Device code is found by address: every image lives in a device's code
 * range, so the return address of a call tells which device and which image
 * made it, also on libomp's pool threads that run a kernel's parallel
 * regions (they carry no device context). */
#include "config.h"
#include "devicertl.h"
#include "arena.h"
#include "trace.h"

#include <ompemu/abi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct rtl_image {
  uintptr_t base;
  size_t span; /* atomic: 0 once retired in place */
  int dev;
  const struct emu_image *img;
  void *map_p_var;    /* __omp_offloading_fptr_map_ty ** */
  void *map_size_var; /* uint64_t * */
};

/* Immutable once published. */
struct snapshot {
  struct snapshot *retired_next;
  size_t n;
  struct rtl_image v[];
};

/* REG_LOCK serialises writers and protects RETIRED; readers load CURRENT. */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(struct snapshot *) current;
static struct snapshot *retired;


/* Device whose code range holds ADDR, or -1. */
static int code_device(uintptr_t addr) {
  if (addr < EMU_CODE_BASE ||
      addr >= EMU_CODE_BASE + EMU_MAX_DEVICES * EMU_CODE_STRIDE)
    return -1;
  return (int)((addr - EMU_CODE_BASE) / EMU_CODE_STRIDE);
}

static void publish(struct snapshot *n) {
  struct snapshot *old = atomic_exchange(&current, n);
  if (old) { /* a reader may still hold it: keep it until the end */
    old->retired_next = retired;
    retired = old;
  }
}

int devicertl_image_add(const struct emu_image *img, int dev, uintptr_t base,
                        size_t span, void *map_p_var, void *map_size_var) {
  pthread_mutex_lock(&reg_lock);
  struct snapshot *o = atomic_load(&current);
  size_t n = o ? o->n : 0;
  struct snapshot *s = malloc(sizeof *s + (n + 1) * sizeof s->v[0]);
  if (!s) {
    pthread_mutex_unlock(&reg_lock);
    ompemu_error("emu", "device %d: out of host memory registering image at "
                 OMPEMU_PTR, dev, OMPEMU_P(base));
    return -1;
  }
  size_t j = 0, i = 0;
  for (; i < n && o->v[i].base < base; i++)
    s->v[j++] = o->v[i];
  s->v[j++] = (struct rtl_image){base, span, dev, img, map_p_var, map_size_var};
  for (; i < n; i++)
    s->v[j++] = o->v[i];
  s->n = j;
  publish(s);
  pthread_mutex_unlock(&reg_lock);
  return 0;
}

void devicertl_image_remove(const struct emu_image *img) {
  pthread_mutex_lock(&reg_lock);
  struct snapshot *o = atomic_load(&current);
  if (o) {
    struct snapshot *s = malloc(sizeof *s + o->n * sizeof s->v[0]);
    if (s) {
      size_t j = 0;
      for (size_t i = 0; i < o->n; i++)
        if (o->v[i].img != img)
          s->v[j++] = o->v[i];
      s->n = j;
      publish(s);
    } else {
      /* Readers may hold O: retire the entry in place, span first. */
      for (size_t i = 0; i < o->n; i++)
        if (o->v[i].img == img)
          __atomic_store_n(&o->v[i].span, 0, __ATOMIC_RELEASE);
    }
  }
  pthread_mutex_unlock(&reg_lock);
}

void devicertl_release(void) {
  pthread_mutex_lock(&reg_lock);
  free(atomic_exchange(&current, NULL));
  while (retired) {
    struct snapshot *n = retired->retired_next;
    free(retired);
    retired = n;
  }
  pthread_mutex_unlock(&reg_lock);
}

/* Span of R, 0 if R was retired in place. */
static size_t span_of(const struct rtl_image *r) {
  return __atomic_load_n(&r->span, __ATOMIC_ACQUIRE);
}

static const struct rtl_image *find_by_addr(const struct snapshot *s,
                                            uintptr_t a) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->v[mid].base <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo && a - s->v[lo - 1].base < span_of(&s->v[lo - 1]))
    return &s->v[lo - 1];
  return NULL;
}

const struct emu_image *devicertl_image_at(const void *addr, int *dev) {
  const struct snapshot *s = atomic_load_explicit(&current,
                                                  memory_order_acquire);
  const struct rtl_image *r = s ? find_by_addr(s, (uintptr_t)addr) : NULL;
  if (r && dev)
    *dev = r->dev;
  return r ? r->img : NULL;
}

/* The image a device-runtime call comes from: the one holding the return
 * address RA, else the running kernel's (a tail call from a kernel), else
 * the only image of the context's device that has a table. */
static const struct rtl_image *caller_image(const struct snapshot *s,
                                            uintptr_t ra) {
  if (!s)
    return NULL;
  const struct rtl_image *r = find_by_addr(s, ra);
  if (r)
    return r;
  struct emu_devctx *c = emu_current_ctx();
  if (!c)
    return NULL;
  const struct rtl_image *only = NULL;
  for (size_t i = 0; i < s->n; i++) {
    if (!span_of(&s->v[i]))
      continue;
    if (c->img && s->v[i].img == c->img)
      return &s->v[i];
    if (s->v[i].dev == c->device && s->v[i].map_p_var) {
      if (only)
        return NULL;
      only = &s->v[i];
    }
  }
  return only;
}

static void *translate(void *fn, uintptr_t ra) {
  const struct snapshot *s = atomic_load_explicit(&current,
                                                  memory_order_acquire);
  const struct rtl_image *im = caller_image(s, ra);
  if (!im || !im->map_p_var)
    return fn;
  /* Written by set_function_ptr_map: SIZE is cleared while P changes. */
  const __omp_offloading_fptr_map_ty *tab = __atomic_load_n(
      (__omp_offloading_fptr_map_ty **)im->map_p_var, __ATOMIC_ACQUIRE);
  uint64_t n = __atomic_load_n((uint64_t *)im->map_size_var, __ATOMIC_ACQUIRE);
  void *res = fn;
  if (tab && n) {
    int64_t key = (int64_t)(intptr_t)fn;
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (tab[mid].host_ptr < key)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < n && tab[lo].host_ptr == key)
      res = (void *)(intptr_t)tab[lo].tgt_ptr;
  }
  if (OMPEMU_TRACE_ON(3))
    ompemu_trace(3, "emu", "device %d: translate_fptr " OMPEMU_PTR " -> "
                 OMPEMU_PTR "%s (table of %lu at " OMPEMU_PTR ")", im->dev,
                 OMPEMU_P(fn), OMPEMU_P(res), res == fn ? " (not found)" : "",
                 (unsigned long)n, OMPEMU_P(tab));
  return res;
}

EMU_EXPORT void *__kmpc_target_translate_fptr(void *fn) {
  return translate(fn, (uintptr_t)__builtin_return_address(0));
}

void devicertl_fptr_assign(void *p_var, void *size_var, void *table,
                           void *count) {
  __atomic_store_n((uint64_t *)size_var, 0, __ATOMIC_RELEASE);
  __atomic_store_n((void **)p_var, table, __ATOMIC_RELEASE);
  __atomic_store_n((uint64_t *)size_var, (uint64_t)(uintptr_t)count,
                   __ATOMIC_RELEASE);
}

/* omp_is_initial_device for device code: 0 on a device thread and for any
 * caller in a device's code range (libomp pool threads of a kernel). */
static int rtl_is_initial_device(void) {
  if (emu_current_ctx() ||
      code_device((uintptr_t)__builtin_return_address(0)) >= 0)
    return 0;
  return 1;
}

/* omp_get_device_num for device code: the device whose code called. */
static int rtl_get_device_num(void) {
  int d = code_device((uintptr_t)__builtin_return_address(0));
  if (d >= 0)
    return d;
  struct emu_devctx *c = emu_current_ctx();
  return c ? c->device : 0;
}

/* No dynamic shared memory on the emu device. */
static void *rtl_get_dynamic_shared(void) { return NULL; }

static const struct {
  const char *name;
  void *fn;
} table[] = {
    {"__kmpc_target_translate_fptr", (void *)__kmpc_target_translate_fptr},
    {"llvm_omp_get_dynamic_shared", (void *)rtl_get_dynamic_shared},
    {"omp_get_device_num", (void *)rtl_get_device_num},
    {"omp_is_initial_device", (void *)rtl_is_initial_device},
};

void *devicertl_lookup(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0)
      return table[i].fn;
  return NULL;
}
