/* HSA test double: memory.  Each GPU has a coarse-grained pool in its own
 * fixed range; the CPU agent has one fine-grained system pool (also the
 * kernarg pool).  Both the AMD pool API and the core region API are served
 * from the same pools.  Allocations are bump-allocated, recorded, and filled
 * with 0xa5 so a missing copy is visible.  Copy rules as on ROCm:
 * hsa_amd_memory_async_copy only takes runtime-allocated memory, and system
 * memory only for agents it was opened to (hsa_amd_agents_allow_access). */
#define _GNU_SOURCE
#include "fake_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FAKE_POISON 0xa5

static int map_range(struct fake_pool *p, uintptr_t base, uintptr_t size) {
  void *m = mmap((void *)base, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                     MAP_FIXED_NOREPLACE, -1, 0);
  if (m == MAP_FAILED || (uintptr_t)m != base) {
    fprintf(stderr, "fake-hsa: cannot map 0x%016lx (%lu bytes): %s\n",
            (unsigned long)base, (unsigned long)size, strerror(errno));
    if (m != MAP_FAILED)
      munmap(m, size);
    p->size = 0;
    return -1;
  }
  p->base = p->next = base;
  p->size = size;
  return 0;
}

void fake_mem_init(long long gpu_size) {
  memset(&fake.sys_pool, 0, sizeof fake.sys_pool);
  fake.sys_pool.is_system = 1;
  fake.sys_pool.owner = &fake.agents[0];
  fake.agents[0].pool = &fake.sys_pool;
  map_range(&fake.sys_pool, FAKE_HSA_SYS_BASE, FAKE_HSA_SYS_SIZE);
  for (int i = 1; i < fake.nagents; i++) {
    struct fake_pool *p = &fake.gpu_pool[i - 1];
    memset(p, 0, sizeof *p);
    p->owner = &fake.agents[i];
    fake.agents[i].pool = p;
    map_range(p, FAKE_HSA_GPU_BASE + (uintptr_t)(i - 1) * FAKE_HSA_GPU_STRIDE,
              (uintptr_t)gpu_size);
  }
  fake.nallocs = 0;
}

void fake_mem_fini(void) {
  if (fake.sys_pool.size)
    munmap((void *)fake.sys_pool.base, fake.sys_pool.size);
  fake.sys_pool.size = 0;
  for (int i = 1; i < fake.nagents; i++) {
    struct fake_pool *p = &fake.gpu_pool[i - 1];
    if (p->size)
      munmap((void *)p->base, p->size);
    p->size = 0;
  }
  free(fake.allocs);
  fake.allocs = NULL;
  fake.nallocs = fake.cap = 0;
}

/* Record [LO, HI) of a loaded code object as AGENT's memory (fake_lock
 * held); returns the record index or -1. */
long fake_code_range_add(struct fake_agent *agent, uintptr_t lo, uintptr_t hi) {
  if (fake.nallocs == fake.cap) {
    size_t cap = fake.cap ? 2 * fake.cap : 256;
    struct fake_alloc *n = realloc(fake.allocs, cap * sizeof *n);
    if (!n)
      return -1;
    fake.allocs = n;
    fake.cap = cap;
  }
  fake.allocs[fake.nallocs] = (struct fake_alloc){
      .ptr = lo, .size = hi - lo, .pool = agent->pool, .live = 1, .is_code = 1};
  return (long)fake.nallocs++;
}

void fake_code_range_del(long idx) {
  if (idx >= 0 && (size_t)idx < fake.nallocs)
    fake.allocs[idx].live = 0;
}

int fake_hsa_live_allocations(void) {
  int n = 0;
  pthread_mutex_lock(&fake_lock);
  for (size_t i = 0; i < fake.nallocs; i++)
    n += fake.allocs[i].live && !fake.allocs[i].is_code;
  pthread_mutex_unlock(&fake_lock);
  return n;
}

struct fake_alloc *fake_alloc_find(uintptr_t p, uintptr_t size) {
  for (size_t i = 0; i < fake.nallocs; i++) {
    struct fake_alloc *a = &fake.allocs[i];
    if (a->live && p >= a->ptr && p + size <= a->ptr + a->size &&
        p + size >= p)
      return a;
  }
  return NULL;
}

static struct fake_pool *pool_of(uint64_t handle) {
  if (handle == (uint64_t)(uintptr_t)&fake.sys_pool)
    return &fake.sys_pool;
  for (int i = 1; i < fake.nagents; i++)
    if (handle == (uint64_t)(uintptr_t)&fake.gpu_pool[i - 1])
      return &fake.gpu_pool[i - 1];
  return NULL;
}

static const char *pool_name(const struct fake_pool *p) {
  static __thread char b[80];
  if (p->is_system)
    return "system";
  snprintf(b, sizeof b, "%s#%d", p->owner->name, p->owner->index);
  return b;
}

/* Allocate SIZE bytes from pool HANDLE for API call FN. */
static hsa_status_t alloc_from(const char *fn, uint64_t handle, size_t size,
                               void **ptr, unsigned allowed) {
  pthread_mutex_lock(&fake_lock);
  struct fake_pool *p = fake_ready() ? pool_of(handle) : NULL;
  hsa_status_t st = HSA_STATUS_SUCCESS;
  uintptr_t align = p && p->is_system ? 64 : 4096;
  if (!p || !ptr || size == 0) {
    st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
  } else if (fake.alloc_fail_after >= 0 &&
             fake.allocs_done >= fake.alloc_fail_after) {
    st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  } else {
    uintptr_t at = (p->next + align - 1) & ~(align - 1);
    if (at + size > p->base + p->size || at + size < at) {
      st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    } else if (fake.nallocs == fake.cap) {
      size_t cap = fake.cap ? 2 * fake.cap : 256;
      struct fake_alloc *n = realloc(fake.allocs, cap * sizeof *n);
      if (!n)
        st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
      else {
        fake.allocs = n;
        fake.cap = cap;
      }
    }
    if (st == HSA_STATUS_SUCCESS) {
      p->next = at + size;
      fake.allocs[fake.nallocs++] =
          (struct fake_alloc){.ptr = at, .size = size, .pool = p, .live = 1,
                             .allowed = allowed};
      fake.allocs_done++;
      memset((void *)at, FAKE_POISON, size);
      *ptr = (void *)at;
    }
  }
  pthread_mutex_unlock(&fake_lock);
  fake_log("%s(pool=%s, size=%zu) = 0x%x ptr=0x%016lx", fn,
           p ? pool_name(p) : "bad", size, st,
           st == HSA_STATUS_SUCCESS ? (unsigned long)(uintptr_t)*ptr : 0UL);
  return st;
}

static hsa_status_t free_ptr(const char *fn, void *ptr) {
  pthread_mutex_lock(&fake_lock);
  struct fake_alloc *a = fake_alloc_find((uintptr_t)ptr, 1);
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (!a || a->ptr != (uintptr_t)ptr || a->is_code)
    st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
  else {
    a->live = 0;
    memset(ptr, 0xdd, a->size);
  }
  pthread_mutex_unlock(&fake_lock);
  fake_log("%s(0x%016lx) = 0x%x", fn, (unsigned long)(uintptr_t)ptr, st);
  return st;
}

hsa_status_t hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t agent, hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *),
    void *data) {
  struct fake_agent *a = fake_agent_of(agent);
  fake_log("hsa_amd_agent_iterate_memory_pools(%s) = 0x%x",
           fake_agent_name(a), a ? 0 : HSA_STATUS_ERROR_INVALID_AGENT);
  if (!a)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  hsa_amd_memory_pool_t p = {(uint64_t)(uintptr_t)a->pool};
  return cb(p, data);
}

/* Common answers of pool and region queries (same meanings, different
 * enum values). */
static hsa_status_t pool_info(struct fake_pool *p, int what, void *value) {
  switch (what) {
  case 0: /* segment */
    *(uint32_t *)value = 0; /* HSA_AMD_SEGMENT_GLOBAL / REGION_SEGMENT_GLOBAL */
    return HSA_STATUS_SUCCESS;
  case 1: /* global flags */
    *(uint32_t *)value =
        p->is_system ? (HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                        HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)
                     : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED;
    return HSA_STATUS_SUCCESS;
  case 2: /* size */
    *(size_t *)value = p->size;
    return HSA_STATUS_SUCCESS;
  case 5: /* runtime alloc allowed */
    *(bool *)value = true;
    return HSA_STATUS_SUCCESS;
  case 6: /* granule */
  case 7: /* alignment */
    *(size_t *)value = p->is_system ? 64 : 4096;
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t pool,
                                          hsa_amd_memory_pool_info_t attr,
                                          void *value) {
  struct fake_pool *p = pool_of(pool.handle);
  hsa_status_t st = p ? pool_info(p, (int)attr, value)
                      : HSA_STATUS_ERROR_INVALID_ARGUMENT;
  fake_log("hsa_amd_memory_pool_get_info(%s, %d) = 0x%x",
           p ? pool_name(p) : "bad", (int)attr, st);
  return st;
}

hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t pool,
                                          size_t size, uint32_t flags,
                                          void **ptr) {
  return alloc_from("hsa_amd_memory_pool_allocate", pool.handle, size, ptr, 0);
}

hsa_status_t hsa_amd_memory_pool_free(void *ptr) {
  return free_ptr("hsa_amd_memory_pool_free", ptr);
}

hsa_status_t hsa_agent_iterate_regions(hsa_agent_t agent,
                                       hsa_status_t (*cb)(hsa_region_t, void *),
                                       void *data) {
  struct fake_agent *a = fake_agent_of(agent);
  fake_log("hsa_agent_iterate_regions(%s) = 0x%x", fake_agent_name(a),
           a ? 0 : HSA_STATUS_ERROR_INVALID_AGENT);
  if (!a)
    return HSA_STATUS_ERROR_INVALID_AGENT;
  /* A GPU sees its own memory and the system memory, as on ROCm. */
  hsa_region_t r = {(uint64_t)(uintptr_t)a->pool};
  hsa_status_t st = cb(r, data);
  if (st == HSA_STATUS_SUCCESS && a->is_gpu) {
    r.handle = (uint64_t)(uintptr_t)&fake.sys_pool;
    st = cb(r, data);
  }
  return st;
}

hsa_status_t hsa_region_get_info(hsa_region_t region, hsa_region_info_t attr,
                                 void *value) {
  struct fake_pool *p = pool_of(region.handle);
  hsa_status_t st = p ? pool_info(p, (int)attr, value)
                      : HSA_STATUS_ERROR_INVALID_REGION;
  fake_log("hsa_region_get_info(%s, %d) = 0x%x", p ? pool_name(p) : "bad",
           (int)attr, st);
  return st;
}

hsa_status_t hsa_memory_allocate(hsa_region_t region, size_t size, void **ptr) {
  /* Core API: a region an agent reports is accessible to that agent. */
  return alloc_from("hsa_memory_allocate", region.handle, size, ptr, ~0u);
}

hsa_status_t hsa_memory_free(void *ptr) {
  return free_ptr("hsa_memory_free", ptr);
}

hsa_status_t hsa_amd_agents_allow_access(uint32_t n, const hsa_agent_t *agents,
                                         const uint32_t *flags,
                                         const void *ptr) {
  pthread_mutex_lock(&fake_lock);
  struct fake_alloc *a = fake_alloc_find((uintptr_t)ptr, 1);
  hsa_status_t st = HSA_STATUS_SUCCESS;
  char names[160] = "";
  /* System memory, or device memory opened to peer GPUs; code object
   * ranges are not allocations. */
  if (!a || a->ptr != (uintptr_t)ptr || a->is_code)
    st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < n && st == HSA_STATUS_SUCCESS; i++) {
    struct fake_agent *ag = fake_agent_of(agents[i]);
    if (!ag)
      st = HSA_STATUS_ERROR_INVALID_AGENT;
    else {
      if (ag->is_gpu)
        a->allowed |= 1u << ag->index;
      size_t l = strlen(names);
      snprintf(names + l, sizeof names - l, "%s%s", i ? "," : "",
               fake_agent_name(ag));
    }
  }
  pthread_mutex_unlock(&fake_lock);
  fake_log("hsa_amd_agents_allow_access(agents=%s, ptr=0x%016lx) = 0x%x",
           names, (unsigned long)(uintptr_t)ptr, st);
  return st;
}

/* May AGENT's copy engine touch [P, P+SIZE)?  GPU is the GPU of the copy
 * (the destination's when both are GPUs).  (fake_lock held) */
static const char *copy_check(uintptr_t p, size_t size, struct fake_agent *ag,
                              struct fake_agent *gpu) {
  struct fake_alloc *a = fake_alloc_find(p, size);
  if (!a)
    return "not runtime-allocated memory";
  if (!ag)
    return "bad agent";
  if (a->pool->is_system) {
    if (gpu && !(a->allowed & (1u << gpu->index)))
      return "system memory not opened to the GPU (hsa_amd_agents_allow_access)";
  } else if (a->pool->owner != ag) {
    return "device memory of another agent";
  } else if (gpu && gpu != ag && !(a->allowed & (1u << gpu->index))) {
    return "peer device memory not opened to the GPU (hsa_amd_agents_allow_access)";
  }
  return NULL;
}

hsa_status_t hsa_amd_memory_async_copy(void *dst, hsa_agent_t dst_agent,
                                       const void *src, hsa_agent_t src_agent,
                                       size_t size, uint32_t ndep,
                                       const hsa_signal_t *deps,
                                       hsa_signal_t completion) {
  for (uint32_t i = 0; i < ndep; i++)
    hsa_signal_wait_scacquire(deps[i], HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                              HSA_WAIT_STATE_BLOCKED);
  pthread_mutex_lock(&fake_lock);
  struct fake_agent *da = fake_agent_of(dst_agent), *sa = fake_agent_of(src_agent);
  struct fake_agent *gpu = da && da->is_gpu ? da : sa && sa->is_gpu ? sa : NULL;
  const char *why = completion.handle == 0 ? "no completion signal" : NULL;
  if (!why)
    why = copy_check((uintptr_t)dst, size, da, gpu);
  if (!why)
    why = copy_check((uintptr_t)src, size, sa, gpu);
  pthread_mutex_unlock(&fake_lock);
  hsa_status_t st = why ? HSA_STATUS_ERROR_INVALID_ARGUMENT : HSA_STATUS_SUCCESS;
  char dn[80];
  snprintf(dn, sizeof dn, "%s", fake_agent_name(da));
  fake_log("hsa_amd_memory_async_copy(dst=0x%016lx, dst_agent=%s, "
           "src=0x%016lx, src_agent=%s, size=%zu, deps=%u) = 0x%x%s%s",
           (unsigned long)(uintptr_t)dst, dn, (unsigned long)(uintptr_t)src,
           fake_agent_name(sa), size, ndep, st, why ? " " : "", why ? why : "");
  if (why)
    return st;
  pthread_mutex_lock(&fake_lock);
  int dma_error = fake.copy_fail_after >= 0 &&
                  fake.copies_done >= fake.copy_fail_after;
  fake.copies_done++;
  pthread_mutex_unlock(&fake_lock);
  if (dma_error) {
    /* As a failed DMA reports itself: the copy is accepted, nothing moves,
     * and the completion signal ends negative. */
    fake_log("async copy error (FAKE_HSA_COPY_FAIL_AFTER): signal 0x%016lx "
             "set to -1", (unsigned long)completion.handle);
    fake_signal_sub(completion, 2);
    return HSA_STATUS_SUCCESS;
  }
  memmove(dst, src, size);
  fake_signal_sub(completion, 1);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_memory_copy(void *dst, const void *src, size_t size) {
  fake_log("hsa_memory_copy(dst=0x%016lx, src=0x%016lx, size=%zu) = 0x0",
           (unsigned long)(uintptr_t)dst, (unsigned long)(uintptr_t)src, size);
  memmove(dst, src, size);
  return HSA_STATUS_SUCCESS;
}
