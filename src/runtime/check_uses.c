/* A construct's uses (struct cuse in check.h): the mappings it used, found
 * again by their (device address, host range), and the copies back it
 * made, asked per use.  A construct of a mapper over an array of structs
 * carries thousands of map entries: the uses are then found through a
 * hash of their key, and the copies back answer from a sorted list, so a
 * construct costs O(n log n) in its entries, not O(n^2). */
#include "config.h"
#include "check.h"

#include <stdlib.h>

/* Uses looked up by a walk up to this many; past it, through the index. */
#define INDEX_MIN 16

static size_t key_hash(uintptr_t hst, uintptr_t size, uintptr_t tgt) {
  uint64_t h = (uint64_t)hst * 0x9e3779b97f4a7c15u ^
               (uint64_t)tgt * 0xc2b2ae3d27d4eb4fu ^ (uint64_t)size;
  return (size_t)(h ^ h >> 29);
}

/* Puts use I into R's index (which has room). */
static void index_put(struct cregion *r, int i) {
  const struct cuse *u = &r->uses[i];
  size_t mask = (size_t)r->uindex_cap - 1;
  size_t j = key_hash(u->hst, u->size, u->tgt) & mask;
  while (r->uindex[j] >= 0)
    j = (j + 1) & mask;
  r->uindex[j] = i;
}

/* R's index, rebuilt for at least twice its uses; 0, or -1 out of memory
 * (the walk answers then). */
static int index_grow(struct cregion *r) {
  int cap = 64;
  while (cap < 4 * r->nuses)
    cap *= 2;
  int *ix = malloc((size_t)cap * sizeof *ix);
  if (!ix)
    return -1;
  free(r->uindex);
  r->uindex = ix;
  r->uindex_cap = cap;
  for (int j = 0; j < cap; j++)
    ix[j] = -1;
  for (int i = 0; i < r->nuses; i++)
    index_put(r, i);
  return 0;
}

static struct cuse *find(struct cregion *r, uintptr_t hst, uintptr_t size,
                         uintptr_t tgt) {
  if (!r->uindex) {
    for (int i = 0; i < r->nuses; i++)
      if (r->uses[i].tgt == tgt && r->uses[i].hst == hst &&
          r->uses[i].size == size)
        return &r->uses[i];
    return NULL;
  }
  size_t mask = (size_t)r->uindex_cap - 1;
  for (size_t j = key_hash(hst, size, tgt) & mask; r->uindex[j] >= 0;
       j = (j + 1) & mask) {
    struct cuse *u = &r->uses[r->uindex[j]];
    if (u->tgt == tgt && u->hst == hst && u->size == size)
      return u;
  }
  return NULL;
}

struct cuse *check_region_use(struct cregion *r, uintptr_t hst,
                              uintptr_t size, uintptr_t tgt, const char *var,
                              int64_t maptype) {
  if (!r)
    return NULL;
  struct cuse *u = find(r, hst, size, tgt);
  if (u) {
    u->maptype |= maptype;
    return u;
  }
  if (r->nuses == r->capuses) {
    int nc = r->capuses ? r->capuses * 2 : 8;
    struct cuse *n = realloc(r->uses, (size_t)nc * sizeof *n);
    if (!n)
      return NULL;
    r->uses = n;
    r->capuses = nc;
  }
  u = &r->uses[r->nuses++];
  check_zero(u, sizeof *u);
  u->hst = u->rhst = hst;
  u->size = u->rsize = size;
  u->tgt = u->rtgt = tgt;
  u->var = var;
  u->maptype = maptype;
  if (r->uindex && 2 * r->nuses <= r->uindex_cap)
    index_put(r, r->nuses - 1);
  else if (r->nuses > INDEX_MIN && index_grow(r) != 0) {
    free(r->uindex); /* the walk answers */
    r->uindex = NULL;
    r->uindex_cap = 0;
  }
  return u;
}

void check_region_copied(struct cregion *r, uintptr_t hst, uintptr_t size) {
  if (!r || !size)
    return;
  if (r->ncopies == r->capcopies) {
    int nc = r->capcopies ? r->capcopies * 2 : 8;
    struct crange *n = realloc(r->copies, (size_t)nc * sizeof *n);
    if (!n)
      return;
    r->copies = n;
    r->capcopies = nc;
  }
  r->copies[r->ncopies++] = (struct crange){hst, hst + size};
  r->copies_sorted = 0;
}

static int by_lo(const void *a, const void *b) {
  const struct crange *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

int check_use_copied_from(struct cregion *r, const struct cuse *u) {
  if (!r->ncopies)
    return 0;
  if (!r->copies_sorted) {
    /* By start, each end raised to the largest end so far: the copies
     * starting below an address reach past it if the last one's does. */
    qsort(r->copies, (size_t)r->ncopies, sizeof *r->copies, by_lo);
    for (int i = 1; i < r->ncopies; i++)
      if (r->copies[i].hi < r->copies[i - 1].hi)
        r->copies[i].hi = r->copies[i - 1].hi;
    r->copies_sorted = 1;
  }
  /* The last copy starting below the use's end. */
  int lo = 0, hi = r->ncopies;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (r->copies[mid].lo < u->hst + u->size)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && r->copies[lo - 1].hi > u->hst;
}

/* Uses by device address, ties in the order they came. */
static int by_tgt(const void *a, const void *b) {
  const struct use_at *x = a, *y = b;
  return x->tgt != y->tgt ? (x->tgt > y->tgt) - (x->tgt < y->tgt)
                          : (x->idx > y->idx) - (x->idx < y->idx);
}

int check_uses_in(struct cregion *r, uintptr_t lo, uintptr_t hi,
                  const struct use_at **at) {
  if (r->nuses <= INDEX_MIN)
    return -1;
  if (r->by_tgt_n != r->nuses) {
    struct use_at *v = realloc(r->by_tgt, (size_t)r->nuses * sizeof *v);
    if (!v)
      return -1;
    r->by_tgt = v;
    r->by_tgt_n = r->nuses;
    for (int i = 0; i < r->nuses; i++)
      v[i] = (struct use_at){r->uses[i].tgt, i};
    qsort(v, (size_t)r->nuses, sizeof *v, by_tgt);
  }
  int a = 0, b = r->nuses;
  while (a < b) {
    int mid = a + (b - a) / 2;
    if (r->by_tgt[mid].tgt < lo)
      a = mid + 1;
    else
      b = mid;
  }
  int n = 0;
  while (a + n < r->nuses && r->by_tgt[a + n].tgt < hi)
    n++;
  *at = r->by_tgt + a;
  return n;
}

void check_region_uses_free(struct cregion *r) {
  free(r->uindex);
  r->uindex = NULL;
  r->uindex_cap = 0;
  free(r->copies);
  r->copies = NULL;
  r->ncopies = r->capcopies = 0;
  free(r->by_tgt);
  r->by_tgt = NULL;
  r->by_tgt_n = 0;
}
