/* The arena's indexes (see arena_index.h): treaps of extents by address,
 * the table and the bitmap of live blocks by start, and the node pool.  A
 * treap's priorities are a hash of the key, so the same extents always
 * give the same tree. */
#include "config.h"
#include "arena_index.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static uint32_t prio_of(uintptr_t key) {
  uint64_t x = (uint64_t)key;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return (uint32_t)x;
}

/* Split T into keys < KEY (*L) and keys >= KEY (*R). */
static void split(struct anode *t, uintptr_t key, struct anode **l,
                  struct anode **r) {
  if (!t) {
    *l = *r = NULL;
    return;
  }
  if (t->key < key) {
    split(t->r, key, &t->r, r);
    *l = t;
  } else {
    split(t->l, key, l, &t->l);
    *r = t;
  }
}

/* Every key of L is below every key of R. */
static struct anode *merge(struct anode *l, struct anode *r) {
  if (!l)
    return r;
  if (!r)
    return l;
  if (prio_of(l->key) > prio_of(r->key)) {
    l->r = merge(l->r, r);
    return l;
  }
  r->l = merge(l, r->l);
  return r;
}

void atree_insert(struct anode **root, struct anode *n) {
  uint32_t prio = prio_of(n->key);
  n->l = n->r = NULL;
  /* Descend while the priorities say N goes lower, then split there. */
  struct anode **at = root;
  while (*at && prio_of((*at)->key) > prio)
    at = n->key < (*at)->key ? &(*at)->l : &(*at)->r;
  split(*at, n->key, &n->l, &n->r);
  *at = n;
}

struct anode *atree_remove(struct anode **root, uintptr_t key) {
  struct anode **at = root;
  while (*at && (*at)->key != key)
    at = key < (*at)->key ? &(*at)->l : &(*at)->r;
  struct anode *n = *at;
  if (!n)
    return NULL;
  *at = merge(n->l, n->r);
  n->l = n->r = NULL;
  return n;
}

struct anode *atree_floor(struct anode *t, uintptr_t p) {
  struct anode *best = NULL;
  while (t) {
    if (t->key <= p) {
      best = t;
      t = t->r;
    } else {
      t = t->l;
    }
  }
  return best;
}

struct anode *atree_ceil(struct anode *t, uintptr_t p) {
  struct anode *best = NULL;
  while (t) {
    if (t->key >= p) {
      best = t;
      t = t->l;
    } else {
      t = t->r;
    }
  }
  return best;
}

void atree_walk(struct anode *t, void (*fn)(struct anode *, void *),
                void *arg) {
  /* Iterative in-order walk; FN may not change the tree. */
  struct anode *stack[128];
  int sp = 0;
  while (t || sp > 0) {
    while (t) {
      if (sp == 128) { /* deeper than any treap of this size gets */
        atree_walk(t, fn, arg);
        t = NULL;
        break;
      }
      stack[sp++] = t;
      t = t->l;
    }
    if (sp == 0)
      break;
    t = stack[--sp];
    struct anode *right = t->r;
    fn(t, arg);
    t = right;
  }
}

_Static_assert(sizeof(struct anode) == 64, "an arena node is one cache line");

enum { CHUNK_NODES = 256 };

struct anode *apool_get(struct apool *p) {
  if (!p->free) {
    if (p->nchunks == p->capchunks) {
      size_t nc = p->capchunks ? p->capchunks * 2 : 16;
      void **v = realloc(p->chunks, nc * sizeof *v);
      if (!v)
        return NULL;
      p->chunks = v;
      p->capchunks = nc;
    }
    void *mem;
    if (posix_memalign(&mem, 64, CHUNK_NODES * sizeof(struct anode)))
      return NULL;
    struct anode *c = mem;
    p->chunks[p->nchunks++] = c;
    for (int i = CHUNK_NODES - 1; i >= 0; i--) {
      c[i].next = p->free;
      p->free = &c[i];
    }
  }
  struct anode *n = p->free;
  p->free = n->next;
  if (p->free) /* the next one's line, for the next caller (block_pool.h) */
    __builtin_prefetch(p->free, 1);
  memset(n, 0, sizeof *n);
  return n;
}

void apool_put(struct apool *p, struct anode *n) {
  n->next = p->free;
  p->free = n;
}

void apool_release(struct apool *p) {
  for (size_t i = 0; i < p->nchunks; i++)
    free(p->chunks[i]);
  free(p->chunks);
  memset(p, 0, sizeof *p);
}

static void *zeroed_map(size_t bytes) {
  void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return m == MAP_FAILED ? NULL : m;
}

int aslots_init(struct aslots *s, uintptr_t base, size_t span, size_t gran) {
  s->base = base;
  s->gran = gran;
  s->n = span / gran + 1;
  s->v = zeroed_map(s->n * sizeof *s->v);
  return s->v ? 0 : -1;
}

void aslots_release(struct aslots *s) {
  if (s->v)
    munmap(s->v, s->n * sizeof *s->v);
  s->v = NULL;
}

int abits_init(struct abits *b, uintptr_t base, size_t span, size_t gran) {
  size_t bits = span / gran + 1;
  b->base = base;
  b->gran = gran;
  b->n1 = (bits + 63) / 64;
  b->n2 = (b->n1 + 63) / 64;
  b->l1 = zeroed_map(b->n1 * 8);
  b->l2 = zeroed_map(b->n2 * 8);
  if (!b->l1 || !b->l2) {
    abits_release(b);
    return -1;
  }
  return 0;
}

void abits_release(struct abits *b) {
  if (b->l1)
    munmap(b->l1, b->n1 * 8);
  if (b->l2)
    munmap(b->l2, b->n2 * 8);
  b->l1 = b->l2 = NULL;
}

void abits_set(struct abits *b, uintptr_t p) {
  size_t g = (p - b->base) / b->gran, w = g / 64;
  b->l1[w] |= (uint64_t)1 << (g % 64);
  b->l2[w / 64] |= (uint64_t)1 << (w % 64);
}

void abits_clear(struct abits *b, uintptr_t p) {
  size_t g = (p - b->base) / b->gran, w = g / 64;
  b->l1[w] &= ~((uint64_t)1 << (g % 64));
  if (!b->l1[w])
    b->l2[w / 64] &= ~((uint64_t)1 << (w % 64));
}

static uintptr_t addr_of(const struct abits *b, size_t w, uint64_t m) {
  return b->base + (w * 64 + 63 - (size_t)__builtin_clzll(m)) * b->gran;
}

uintptr_t abits_floor(const struct abits *b, uintptr_t p) {
  if (p < b->base || !b->l1)
    return 0;
  size_t g = (p - b->base) / b->gran, w = g / 64;
  if (w >= b->n1) {
    w = b->n1 - 1;
    g = w * 64 + 63;
  }
  unsigned bit = g % 64;
  uint64_t m = b->l1[w] & (bit == 63 ? ~(uint64_t)0
                                     : (((uint64_t)1 << (bit + 1)) - 1));
  if (m)
    return addr_of(b, w, m);
  /* The highest word below W with a bit set, from the summary. */
  size_t w2 = w / 64;
  uint64_t m2 = b->l2[w2] & (((uint64_t)1 << (w % 64)) - 1);
  while (!m2 && w2 > 0)
    m2 = b->l2[--w2];
  if (!m2)
    return 0;
  size_t word = w2 * 64 + 63 - (size_t)__builtin_clzll(m2);
  return addr_of(b, word, b->l1[word]);
}
