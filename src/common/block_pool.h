/* A pool of fixed-size, 64-byte-aligned blocks, for the nodes of the
 * runtime's mapping table (entries, index nodes) and of the emu arena's
 * extent tree: blocks come from slabs of BLOCK_POOL_SLAB blocks and go
 * back to a free list, so mapping and unmapping cost no malloc (an
 * aligned malloc and free cost as much as the rest of an enter/exit pair)
 * and a block's first cache line holds what lookups read.  The slabs are
 * freed with the pool.  Not thread-safe: its owner's lock protects it (the
 * device's map_lock, the arena's lock).  A zeroed pool is empty and
 * valid. */
#ifndef OMPEMU_BLOCK_POOL_H
#define OMPEMU_BLOCK_POOL_H

#include <stddef.h>
#include <stdlib.h>

/* A block given back is made inaccessible to memcheck and to ASan, so
 * that a use after map_remove is still caught as with free(). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define BLOCK_POOL_NOACCESS(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define BLOCK_POOL_ACCESS(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#define BLOCK_POOL_LINK(p) ASAN_UNPOISON_MEMORY_REGION((p), sizeof(void *))
#elif defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define BLOCK_POOL_NOACCESS(p, n) VALGRIND_MAKE_MEM_NOACCESS((p), (n))
#define BLOCK_POOL_ACCESS(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
#define BLOCK_POOL_LINK(p) VALGRIND_MAKE_MEM_DEFINED((p), sizeof(void *))
#endif
#endif
#ifndef BLOCK_POOL_NOACCESS
#define BLOCK_POOL_NOACCESS(p, n) ((void)(p), (void)(n))
#define BLOCK_POOL_ACCESS(p, n) ((void)(p), (void)(n))
#define BLOCK_POOL_LINK(p) ((void)(p))
#endif

#define BLOCK_POOL_SLAB 64

struct block_pool_slab {
  struct block_pool_slab *next;
};

struct block_pool {
  void *free;                   /* free blocks, linked through their start */
  struct block_pool_slab *slabs;  /* each: one line of header, then blocks */
};

/* SIZE rounded up to whole cache lines. */
static inline size_t block_pool_block(size_t size) { return (size + 63) & ~(size_t)63; }

/* A block of SIZE bytes (the same SIZE on every call for one pool, and
 * for block_pool_put and block_pool_release), not zeroed; NULL when out of
 * memory. */
static inline void *block_pool_get(struct block_pool *p, size_t size) {
  if (!p->free) {
    size_t b = block_pool_block(size);
    void *mem = NULL;
    if (posix_memalign(&mem, 64, 64 + BLOCK_POOL_SLAB * b))
      return NULL;
    struct block_pool_slab *s = mem;
    s->next = p->slabs;
    p->slabs = s;
    char *blocks = (char *)mem + 64;
    for (size_t i = BLOCK_POOL_SLAB; i-- > 0;) {
      *(void **)(blocks + i * b) = p->free;
      p->free = blocks + i * b;
      BLOCK_POOL_NOACCESS(blocks + i * b, b);
    }
  }
  void *r = p->free;
  BLOCK_POOL_LINK(r);
  p->free = *(void **)r;
  BLOCK_POOL_ACCESS(r, block_pool_block(size));
  /* The next block handed out was given back long ago, at a random place
   * (blocks come back in any order): fetch its lines now, so that the
   * next caller, which writes it, does not wait for them. */
  if (p->free) {
    __builtin_prefetch(p->free, 1);
    if (size > 64)
      __builtin_prefetch((char *)p->free + 64, 1);
  }
  return r;
}

static inline void block_pool_put(struct block_pool *p, void *block, size_t size) {
  *(void **)block = p->free;
  p->free = block;
  BLOCK_POOL_NOACCESS(block, block_pool_block(size));
}

/* Free every slab (every block, given back or not); SIZE as for
 * block_pool_get. */
static inline void block_pool_release(struct block_pool *p, size_t size) {
  while (p->slabs) {
    struct block_pool_slab *s = p->slabs;
    p->slabs = s->next;
    BLOCK_POOL_ACCESS((char *)s + 64, BLOCK_POOL_SLAB * block_pool_block(size));
    free(s);
  }
  p->free = NULL;
}

#endif
