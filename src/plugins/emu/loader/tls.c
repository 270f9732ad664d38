/* Dynamic thread-local storage for loaded images (see tls.h).  A module id
 * is the module's own address; blocks carry a header linking them into the
 * module's list so unload can free the blocks of threads still alive. */
#include "config.h"
#include "tls.h"
#include "trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct tls_block {
  struct tls_block *next, *prev;
  struct emu_tls *owner;
};

struct emu_tls {
  pthread_key_t key;
  const void *init;
  size_t filesz, memsz, align, pad; /* pad: header rounded up to align */
  pthread_mutex_t lock;             /* protects blocks */
  struct tls_block *blocks;
};

/* The argument x86-64 code passes to __tls_get_addr. */
typedef struct {
  uint64_t module;
  uint64_t offset;
} tls_index;

/* Take B out of T's block list (T's lock held). */
static void unlink_block(struct emu_tls *t, struct tls_block *b) {
  if (b->prev)
    b->prev->next = b->next;
  else
    t->blocks = b->next;
  if (b->next)
    b->next->prev = b->prev;
}

/* Thread exit: free the thread's block B. */
static void block_dtor(void *b) {
  struct tls_block *blk = b;
  struct emu_tls *t = blk->owner;
  pthread_mutex_lock(&t->lock);
  unlink_block(t, blk);
  pthread_mutex_unlock(&t->lock);
  free(blk);
}

struct emu_tls *tls_create(const void *init, size_t filesz, size_t memsz,
                           size_t align) {
  struct emu_tls *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  if (align < sizeof(void *))
    align = sizeof(void *);
  t->init = init;
  t->filesz = filesz;
  t->memsz = memsz;
  t->align = align;
  t->pad = (sizeof(struct tls_block) + align - 1) / align * align;
  if (pthread_key_create(&t->key, block_dtor) != 0) {
    free(t);
    return NULL;
  }
  pthread_mutex_init(&t->lock, NULL);
  return t;
}

void tls_destroy(struct emu_tls *t) {
  if (!t)
    return;
  pthread_key_delete(t->key);
  pthread_mutex_lock(&t->lock);
  for (struct tls_block *b = t->blocks, *n; b; b = n) {
    n = b->next;
    free(b);
  }
  pthread_mutex_unlock(&t->lock);
  pthread_mutex_destroy(&t->lock);
  free(t);
}

uint64_t tls_module_id(const struct emu_tls *t) { return (uintptr_t)t; }

/* __tls_get_addr for loaded images: the calling thread's block of module
 * TI->module (made on first use), plus TI->offset.  Out of memory is fatal
 * here as in glibc: the caller has no way to fail. */
static void *emu_tls_get_addr(tls_index *ti) {
  struct emu_tls *t = (struct emu_tls *)(uintptr_t)ti->module;
  struct tls_block *b = pthread_getspecific(t->key);
  if (!b) {
    void *m = NULL;
    if (posix_memalign(&m, t->align, t->pad + t->memsz) != 0) {
      ompemu_error("emu", "cannot allocate %zu bytes of thread-local storage "
                   "for module " OMPEMU_PTR, t->pad + t->memsz, OMPEMU_P(t));
      abort();
    }
    b = m;
    memcpy((char *)b + t->pad, t->init, t->filesz);
    memset((char *)b + t->pad + t->filesz, 0, t->memsz - t->filesz);
    b->owner = t;
    b->prev = NULL;
    pthread_mutex_lock(&t->lock);
    b->next = t->blocks;
    if (b->next)
      b->next->prev = b;
    t->blocks = b;
    pthread_mutex_unlock(&t->lock);
    pthread_setspecific(t->key, b);
  }
  return (char *)b + t->pad + ti->offset;
}

void *tls_get_addr_fn(void) { return (void *)emu_tls_get_addr; }
