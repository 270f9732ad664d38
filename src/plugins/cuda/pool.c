/* The device memory pool: allocations of at most cu_tune.pool_threshold
 * bytes (LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD, 8 KiB by default, as in
 * LLVM's plugins) get a block of the next power-of-two size from
 * CU_POOL_MIN bytes, and a freed block is kept for the next allocation of
 * its size class instead of going back to the driver: a target region's
 * map then costs no cuMemAlloc/cuMemFree (cuMemFree also waits for the
 * whole device).  At most cu_tune.pool_idle_max bytes are kept idle; the
 * idle blocks are freed when an allocation runs out of device memory, and
 * everything when the plugin is unloaded.
 *
 * pool->lock protects the idle lists and the hash of handed-out blocks;
 * it is never held across a driver call. */
#include "config.h"
#include "cuda_rtl.h"

#include <stdlib.h>

static unsigned size_class(size_t size) {
  unsigned c = 0;
  while (((size_t)CU_POOL_MIN << c) < size)
    c++;
  return c;
}

static size_t class_size(unsigned c) { return (size_t)CU_POOL_MIN << c; }

static size_t hash_of(CUdeviceptr p, size_t nbuckets) {
  return (size_t)((p / CU_POOL_MIN) * 0x9e3779b97f4a7c15ull >> 20) &
         (nbuckets - 1);
}

/* Grow POOL's hash to twice its size (lock held); -1 when out of memory,
 * which leaves the table as it was. */
static int rehash(struct cu_pool *pool) {
  size_t n = pool->nbuckets ? 2 * pool->nbuckets : 64;
  struct cu_pool_block **t = calloc(n, sizeof *t);
  if (!t)
    return -1;
  for (size_t i = 0; i < pool->nbuckets; i++)
    for (struct cu_pool_block *b = pool->live[i], *next; b; b = next) {
      next = b->next;
      size_t h = hash_of(b->ptr, n);
      b->next = t[h];
      t[h] = b;
    }
  free(pool->live);
  pool->live = t;
  pool->nbuckets = n;
  return 0;
}

/* Record B as handed out (lock held); -1 when the hash cannot grow. */
static int live_add(struct cu_pool *pool, struct cu_pool_block *b) {
  if (pool->nlive >= pool->nbuckets && rehash(pool) != 0 && !pool->nbuckets)
    return -1;
  size_t h = hash_of(b->ptr, pool->nbuckets);
  b->next = pool->live[h];
  pool->live[h] = b;
  pool->nlive++;
  return 0;
}

/* Take P's record out of the handed-out blocks (lock held); NULL if P is
 * not a pool block. */
static struct cu_pool_block *live_take(struct cu_pool *pool, CUdeviceptr p) {
  if (!pool->nbuckets)
    return NULL;
  for (struct cu_pool_block **pp = &pool->live[hash_of(p, pool->nbuckets)]; *pp;
       pp = &(*pp)->next)
    if ((*pp)->ptr == p) {
      struct cu_pool_block *b = *pp;
      *pp = b->next;
      pool->nlive--;
      return b;
    }
  return NULL;
}

CUresult cu_mem_alloc(struct cu_device *d, int32_t id, CUdeviceptr *p,
                      size_t size) {
  if (cu_use(d, id, "cuMemAlloc") != 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  CUresult r = cu.cuMemAlloc(p, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY && cu_pool_trim(d, id) > 0)
    r = cu.cuMemAlloc(p, size);
  return r;
}

CUdeviceptr cu_pool_alloc(struct cu_device *d, int32_t id, size_t size,
                          void *hst, int *pooled) {
  *pooled = size <= cu_tune.pool_threshold;
  if (!*pooled)
    return 0;
  struct cu_pool *pool = &d->pool;
  unsigned c = size_class(size);
  pthread_mutex_lock(&pool->lock);
  struct cu_pool_block *b = pool->idle[c];
  if (b) {
    pool->idle[c] = b->next;
    pool->idle_bytes -= class_size(c);
    if (live_add(pool, b) == 0) {
      pthread_mutex_unlock(&pool->lock);
      return b->ptr;
    }
    b->next = pool->idle[c]; /* no room to record it: leave it idle */
    pool->idle[c] = b;
    pool->idle_bytes += class_size(c);
    pthread_mutex_unlock(&pool->lock);
    ompemu_error(CU_WHO, "device %d: out of host memory for the pool's "
                 "records", (int)id);
    return 0;
  }
  b = pool->spare;
  if (b)
    pool->spare = b->next;
  pthread_mutex_unlock(&pool->lock);
  if (!b && !(b = malloc(sizeof *b))) {
    ompemu_error(CU_WHO, "device %d: out of host memory for the pool's "
                 "records", (int)id);
    return 0;
  }
  CUresult r = cu_mem_alloc(d, id, &b->ptr, class_size(c));
  if (cu_check(r, "cuMemAlloc", id, "%zu bytes (device, a pool block of %zu) "
               "for host 0x%016lx", size, class_size(c), OMPEMU_P(hst)) != 0) {
    free(b);
    return 0;
  }
  b->cls = c;
  pthread_mutex_lock(&pool->lock);
  int rc = live_add(pool, b);
  pthread_mutex_unlock(&pool->lock);
  if (rc != 0) {
    ompemu_error(CU_WHO, "device %d: out of host memory for the pool's "
                 "records", (int)id);
    cu.cuMemFree(b->ptr);
    free(b);
    return 0;
  }
  ompemu_trace(3, CU_WHO, "device %d: pool block " OMPEMU_PTR " of %zu bytes",
               (int)id, (unsigned long)b->ptr, class_size(c));
  return b->ptr;
}

int cu_pool_free(struct cu_device *d, int32_t id, CUdeviceptr ptr) {
  struct cu_pool *pool = &d->pool;
  pthread_mutex_lock(&pool->lock);
  struct cu_pool_block *b = live_take(pool, ptr);
  if (!b) {
    pthread_mutex_unlock(&pool->lock);
    return 0;
  }
  size_t bytes = class_size(b->cls);
  if (pool->idle_bytes + bytes <= cu_tune.pool_idle_max) {
    b->next = pool->idle[b->cls];
    pool->idle[b->cls] = b;
    pool->idle_bytes += bytes;
    pthread_mutex_unlock(&pool->lock);
    return 1;
  }
  pthread_mutex_unlock(&pool->lock);
  /* Enough is kept idle already: this one goes back to the driver. */
  int rc = cu_use(d, id, "data_delete") != 0 ||
           cu_check(cu.cuMemFree(ptr), "cuMemFree", id, "pool block 0x%016lx "
                    "(%zu bytes)", (unsigned long)ptr, bytes) != 0;
  pthread_mutex_lock(&pool->lock);
  b->next = pool->spare;
  pool->spare = b;
  pthread_mutex_unlock(&pool->lock);
  return rc ? -1 : 1;
}

/* Free the blocks of list B (the context is current); the number freed,
 * or -1 if a free failed.  The records go to SPARE_OUT. */
static long free_blocks(int32_t id, struct cu_pool_block *b,
                        struct cu_pool_block **spare_out) {
  long n = 0;
  int bad = 0;
  for (struct cu_pool_block *next; b; b = next) {
    next = b->next;
    if (cu_check(cu.cuMemFree(b->ptr), "cuMemFree", id, "pool block 0x%016lx",
                 (unsigned long)b->ptr))
      bad = 1;
    else
      n++;
    b->next = *spare_out;
    *spare_out = b;
  }
  return bad ? -1 : n;
}

int cu_pool_trim(struct cu_device *d, int32_t id) {
  struct cu_pool *pool = &d->pool;
  struct cu_pool_block *all = NULL;
  pthread_mutex_lock(&pool->lock);
  for (unsigned c = 0; c < CU_POOL_CLASSES; c++)
    while (pool->idle[c]) {
      struct cu_pool_block *b = pool->idle[c];
      pool->idle[c] = b->next;
      b->next = all;
      all = b;
    }
  pool->idle_bytes = 0;
  pthread_mutex_unlock(&pool->lock);
  if (!all)
    return 0;
  struct cu_pool_block *spare = NULL;
  long n = free_blocks(id, all, &spare);
  ompemu_trace(2, CU_WHO, "device %d: out of device memory: %ld idle pool "
               "blocks freed", (int)id, n);
  pthread_mutex_lock(&pool->lock);
  while (spare) {
    struct cu_pool_block *b = spare;
    spare = b->next;
    b->next = pool->spare;
    pool->spare = b;
  }
  pthread_mutex_unlock(&pool->lock);
  return n < 0 ? -1 : (int)n;
}

int cu_pool_fini(struct cu_device *d, int32_t id) {
  struct cu_pool *pool = &d->pool;
  int rc = cu_pool_trim(d, id) < 0 ? -1 : 0;
  struct cu_pool_block *spare = NULL;
  for (size_t i = 0; i < pool->nbuckets; i++)
    if (free_blocks(id, pool->live[i], &spare) < 0)
      rc = -1;
  free(pool->live);
  pool->live = NULL;
  pool->nbuckets = pool->nlive = 0;
  while (spare) {
    struct cu_pool_block *b = spare;
    spare = b->next;
    free(b);
  }
  while (pool->spare) {
    struct cu_pool_block *b = pool->spare;
    pool->spare = b->next;
    free(b);
  }
  return rc;
}
