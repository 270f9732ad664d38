/* The arena's free extents (FREE, arena.c): the tree (arena_extents.h),
 * HOLE, and in check mode SIDE: adding a freed extent merged with its
 * free neighbours, the lowest extent that fits (address-ordered first
 * fit over all of them), and taking a block from it.  Extents never touch
 * one another, wherever they are kept, so the same requests give the same
 * addresses however they are split between the tree and the others.
 * Callers hold the arena's lock. */
#include "config.h"
#include "arena_internal.h"
#include "trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The tag of two free extents merged into one (arena_internal.h). */
static unsigned long tag_merge(unsigned long x, unsigned long y) {
  if (x == FREE_FRESH)
    return y;
  if (y == FREE_FRESH)
    return x;
  return x == y ? x : FREE_DIRTY;
}

/* Add the extent E to FREE's tree.  Without host memory for a new tree
 * node the extent is lost to later allocations, with a message. */
static void tree_insert(struct emu_arena *a, struct xt_ext e) {
  if (xt_insert(&a->free, e.key, e.len, e.tag) != 0)
    ompemu_error("emu", "device %d: out of host memory: the freed %s range ["
                 OMPEMU_PTR ", " OMPEMU_PTR ") cannot be allocated again",
                 a->dev, a->what, OMPEMU_P(e.key), OMPEMU_P(e.key + e.len));
}

/* SIDE (check mode): up to EMU_SIDE_MAX extents with no free neighbour,
 * kept out of the tree, by address from the highest down.  The quarantine
 * gives its blocks back EMU_CHECK_RELEASE_BATCH at a time, in the order
 * they were freed (any order), and the allocations that follow take them
 * from the lowest up: each went into the tree and out of it again (a
 * leaf insertion, and a removal that merged underfull leaves: about 450
 * instructions of an enter+exit pair with 100 live blocks).  Here the
 * lowest is the last entry: taking it is a decrement.  So does what is
 * left of a tree extent a block was taken from (the shuffled frees' runs,
 * merged in the tree, are then carved without a tree change per block).
 * When SIDE is full its highest entry goes into the tree. */
#define EMU_SIDE_MAX 64

/* The index of the first entry of SIDE below KEY (NSIDE if none): the
 * entry before it, if any, lies above KEY. */
static size_t side_below(const struct emu_arena *a, uintptr_t key) {
  size_t lo = 0, hi = a->nside;
  /* Above them all (most of a shuffled run's frees once SIDE is full), or
   * below them all. */
  if (!hi || a->side[0].key < key)
    return 0;
  if (a->side[hi - 1].key > key)
    return hi;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (a->side[mid].key > key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Remove entry I of SIDE. */
static void side_remove(struct emu_arena *a, size_t i) {
  a->nside--;
  if (i < a->nside)
    memmove(&a->side[i], &a->side[i + 1], (a->nside - i) * sizeof *a->side);
}

/* E, with no free neighbour, into SIDE at index I (side_below of its key),
 * or into the tree when it would be SIDE's highest of a full SIDE. */
static void side_insert(struct emu_arena *a, size_t i, struct xt_ext e) {
  if (a->nside == EMU_SIDE_MAX) {
    if (i == 0) {
      tree_insert(a, e);
      return;
    }
    tree_insert(a, a->side[0]);
    side_remove(a, 0);
    i--;
  }
  memmove(&a->side[i + 1], &a->side[i], (a->nside - i) * sizeof *a->side);
  a->side[i] = e;
  a->nside++;
}

/* Check mode: [KEY, KEY+LEN) with TAG into FREE, merged with the free
 * extents beside it, in the tree or in SIDE: the merged extent goes where
 * a neighbour of it was, into the tree if one was there, else into SIDE. */
static void side_free_insert(struct emu_arena *a, uintptr_t key, size_t len,
                             unsigned long tag) {
  struct xt_ext lo, hi;
  xt_around(&a->free, key, &lo, &hi);
  int pred = lo.len && lo.key + lo.len == key;
  int succ = hi.len && hi.key == key + len;
  size_t i = side_below(a, key); /* SIDE[I - 1]: above; SIDE[I]: below */
  int spred = i < a->nside && a->side[i].key + a->side[i].len == key;
  int ssucc = i > 0 && a->side[i - 1].key == key + len;
  struct xt_ext m = {key, len, tag};
  if (spred) {
    m.key = a->side[i].key;
    m.len += a->side[i].len;
    m.tag = tag_merge(a->side[i].tag, m.tag);
  } else if (pred) {
    m.key = lo.key;
    m.len += lo.len;
    m.tag = tag_merge(lo.tag, m.tag);
  }
  if (ssucc) {
    m.len += a->side[i - 1].len;
    m.tag = tag_merge(m.tag, a->side[i - 1].tag);
  } else if (succ) {
    m.len += hi.len;
    m.tag = tag_merge(m.tag, hi.tag);
  }
  if (pred) {
    /* LO first: xt_around's leaf most often holds both, and the change
     * that keeps the tree's shape keeps its cursor too. */
    xt_set(&a->free, lo.key, m.key, m.len, m.tag);
    if (succ)
      xt_remove(&a->free, hi.key);
    else if (ssucc)
      side_remove(a, i - 1);
  } else if (succ) {
    xt_set(&a->free, hi.key, m.key, m.len, m.tag);
    if (spred)
      side_remove(a, i);
  } else if (spred) {
    a->side[i] = m;
    if (ssucc)
      side_remove(a, i - 1);
  } else if (ssucc) {
    a->side[i - 1] = m; /* its place in the order is the same */
  } else {
    side_insert(a, i, m);
  }
}

void arena_side_init(struct emu_arena *a) {
  a->side = malloc(EMU_SIDE_MAX * sizeof *a->side);
  a->side_hit = SIZE_MAX;
}

void arena_free_insert(struct emu_arena *a, uintptr_t key, size_t len,
                       unsigned long tag) {
  if (a->side) {
    side_free_insert(a, key, len, tag);
    return;
  }
  if (a->hole.len) {
    tree_insert(a, a->hole);
    a->hole.len = 0;
  }
  struct xt_ext lo, hi;
  xt_around(&a->free, key, &lo, &hi);
  int pred = lo.len && lo.key + lo.len == key;
  int succ = hi.len && hi.key == key + len;
  if (pred && succ) {
    /* LO first: xt_around's leaf most often holds both, and the change
     * that keeps the tree's shape keeps its cursor too. */
    xt_set(&a->free, lo.key, lo.key, lo.len + len + hi.len,
           tag_merge(tag_merge(lo.tag, tag), hi.tag));
    xt_remove(&a->free, hi.key);
  } else if (pred) {
    xt_set(&a->free, lo.key, lo.key, lo.len + len, tag_merge(lo.tag, tag));
  } else if (succ) {
    xt_set(&a->free, hi.key, key, len + hi.len, tag_merge(tag, hi.tag));
  } else {
    a->hole = (struct xt_ext){key, len, tag};
  }
}

int arena_free_first_fit(struct emu_arena *a, size_t len, struct xt_ext *f) {
  int r = xt_first_fit(&a->free, len, f);
  a->side_hit = SIZE_MAX;
  for (size_t i = a->nside; i-- > 0;)
    if (a->side[i].len >= len) {
      if (r != 0 || a->side[i].key < f->key) {
        *f = a->side[i];
        a->side_hit = i;
        return 0;
      }
      break;
    }
  if (a->hole.len >= len && (r != 0 || a->hole.key < f->key)) {
    *f = a->hole;
    return 0;
  }
  return r;
}

void arena_free_take(struct emu_arena *a, const struct xt_ext *f,
                     size_t len) {
  if (a->side_hit != SIZE_MAX) {
    size_t i = a->side_hit;
    a->side_hit = SIZE_MAX;
    if (f->len > len) {
      a->side[i].key += len;
      a->side[i].len -= len;
    } else {
      side_remove(a, i);
    }
  } else if (a->hole.len && a->hole.key == f->key) {
    a->hole.key += len;
    a->hole.len -= len;
  } else if (f->len > len) {
    struct xt_ext rest = {f->key + len, f->len - len, f->tag};
    size_t i = a->side ? side_below(a, rest.key) : 0;
    if (a->side && (a->nside < EMU_SIDE_MAX || i > 0)) {
      /* The rest has no free neighbour (the new block is below it): it
       * moves beside the tree, where the next blocks are carved from it
       * without a tree change each. */
      xt_remove(&a->free, f->key);
      side_insert(a, i, rest);
    } else {
      xt_set(&a->free, f->key, rest.key, rest.len, rest.tag);
    }
  } else {
    xt_remove(&a->free, f->key);
  }
}
