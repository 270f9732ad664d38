/* The per-device mapping table (see mapping.h): an AVL tree of map entries
 * keyed by HstPtrBegin, the LLVM 14 lookup classification, reference
 * counts, shadow pointers, and the permanent mappings of declare-target
 * globals (rt_map_global / rt_unmap_globals, used by the core). */
#include "config.h"
#include "mapping.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct map_table *map_table_of(struct rt_device *d) {
  if (!d->maps)
    d->maps = calloc(1, sizeof(struct map_table));
  return d->maps;
}

static void free_subtree(struct map_entry *e) {
  while (e) {
    free_subtree(e->left);
    struct map_entry *r = e->right;
    free(e->shadows);
    free(e->refs);
    free(e);
    e = r;
  }
}

void map_table_destroy(struct map_table *t) {
  if (!t)
    return;
  free_subtree(t->root);
  free(t);
}

/* ---- AVL tree ---- */

static int height(const struct map_entry *e) { return e ? e->height : 0; }

static void fix_height(struct map_entry *e) {
  int l = height(e->left), r = height(e->right);
  e->height = (l > r ? l : r) + 1;
}

static struct map_entry *rotate_right(struct map_entry *e) {
  struct map_entry *l = e->left;
  e->left = l->right;
  l->right = e;
  fix_height(e);
  fix_height(l);
  return l;
}

static struct map_entry *rotate_left(struct map_entry *e) {
  struct map_entry *r = e->right;
  e->right = r->left;
  r->left = e;
  fix_height(e);
  fix_height(r);
  return r;
}

/* Restore the AVL balance at E after one of its subtrees changed by one. */
static struct map_entry *balance(struct map_entry *e) {
  fix_height(e);
  int bf = height(e->left) - height(e->right);
  if (bf > 1) {
    if (height(e->left->left) < height(e->left->right))
      e->left = rotate_left(e->left);
    return rotate_right(e);
  }
  if (bf < -1) {
    if (height(e->right->right) < height(e->right->left))
      e->right = rotate_right(e->right);
    return rotate_left(e);
  }
  return e;
}

static struct map_entry *insert_node(struct map_entry *root,
                                     struct map_entry *n) {
  if (!root)
    return n;
  if (n->hst_begin < root->hst_begin)
    root->left = insert_node(root->left, n);
  else
    root->right = insert_node(root->right, n);
  return balance(root);
}

/* Detach the minimum of ROOT into *MIN; returns the new subtree. */
static struct map_entry *remove_min(struct map_entry *root,
                                    struct map_entry **min) {
  if (!root->left) {
    *min = root;
    return root->right;
  }
  root->left = remove_min(root->left, min);
  return balance(root);
}

static struct map_entry *remove_node(struct map_entry *root,
                                     struct map_entry *n) {
  if (!root)
    return NULL;
  if (n->hst_begin < root->hst_begin) {
    root->left = remove_node(root->left, n);
  } else if (n->hst_begin > root->hst_begin) {
    root->right = remove_node(root->right, n);
  } else {
    struct map_entry *l = root->left, *r = root->right;
    if (!r)
      return l;
    struct map_entry *min;
    r = remove_min(r, &min);
    min->left = l;
    min->right = r;
    return balance(min);
  }
  return balance(root);
}

/* Greatest entry with begin <= HP. */
static struct map_entry *floor_entry(struct map_table *t, uintptr_t hp) {
  struct map_entry *e = t->root, *best = NULL;
  while (e) {
    if (e->hst_begin <= hp) {
      best = e;
      e = e->right;
    } else {
      e = e->left;
    }
  }
  return best;
}

/* Least entry with begin > HP. */
static struct map_entry *upper_entry(struct map_table *t, uintptr_t hp) {
  struct map_entry *e = t->root, *best = NULL;
  while (e) {
    if (e->hst_begin > hp) {
      best = e;
      e = e->left;
    } else {
      e = e->right;
    }
  }
  return best;
}

struct map_entry *map_first_from(struct map_table *t, uintptr_t hp) {
  struct map_entry *e = t->root, *best = NULL;
  while (e) {
    if (e->hst_begin >= hp) {
      best = e;
      e = e->left;
    } else {
      e = e->right;
    }
  }
  return best;
}

void map_lookup(struct map_table *t, uintptr_t hp, int64_t size,
                struct map_lookup *out) {
  memset(out, 0, sizeof *out);
  if (!t || !t->root)
    return;
  uintptr_t end = hp + (uintptr_t)size;
  struct map_entry *left = floor_entry(t, hp);
  if (left) {
    out->entry = left;
    out->contained = hp >= left->hst_begin && hp < left->hst_end &&
                     end <= left->hst_end;
    out->extends_after = hp < left->hst_end && end > left->hst_end;
  }
  if (!out->contained && !out->extends_after) {
    struct map_entry *right = upper_entry(t, hp);
    if (right) {
      out->entry = right;
      out->extends_before = hp < right->hst_begin && end > right->hst_begin;
      out->extends_after = hp < right->hst_end && end > right->hst_end;
    }
  }
  if (!out->contained && !out->extends_before && !out->extends_after)
    out->entry = NULL;
}

struct map_entry *map_find(struct map_table *t, uintptr_t hp) {
  struct map_lookup lr;
  map_lookup(t, hp, 0, &lr);
  return lr.contained ? lr.entry : NULL;
}

struct map_entry *map_insert(struct map_table *t, uintptr_t base,
                             uintptr_t begin, uintptr_t end, uintptr_t tgt,
                             const char *name, uint64_t dyn, uint64_t hold,
                             int kind) {
  struct map_entry *e = calloc(1, sizeof *e);
  if (!e)
    return NULL;
  e->hst_base = base;
  e->hst_begin = begin;
  e->hst_end = end;
  e->tgt_begin = tgt;
  e->name = name;
  e->dyn_ref = dyn;
  e->hold_ref = hold;
  e->kind = kind;
  e->height = 1;
  t->root = insert_node(t->root, e);
  t->count++;
  return e;
}

void map_remove(struct map_table *t, struct map_entry *e) {
  while (e->nshadows)
    map_shadow_erase(t, e, e->nshadows - 1);
  /* Holders of pointers into E keep their shadows (they are detected as
   * stale later); only the links to E go. */
  t->root = remove_node(t->root, e);
  t->count--;
  free(e->shadows);
  free(e->refs);
  free(e);
}

static int walk(struct map_entry *e, int (*fn)(struct map_entry *, void *),
                void *arg) {
  if (!e)
    return 0;
  if (walk(e->left, fn, arg))
    return 1;
  /* FN may not remove E; callers that remove collect first. */
  if (fn(e, arg))
    return 1;
  return walk(e->right, fn, arg);
}

void map_foreach(struct map_table *t, int (*fn)(struct map_entry *, void *),
                 void *arg) {
  if (t)
    walk(t->root, fn, arg);
}

/* ---- reference counts ---- */

uint64_t map_total_ref(const struct map_entry *e) {
  if (e->dyn_ref == MAP_REF_INF || e->hold_ref == MAP_REF_INF)
    return MAP_REF_INF;
  return e->dyn_ref + e->hold_ref;
}

void map_inc_ref(struct map_entry *e, int hold) {
  uint64_t *r = hold ? &e->hold_ref : &e->dyn_ref;
  if (*r != MAP_REF_INF)
    ++*r;
}

uint64_t map_dec_ref(struct map_entry *e, int hold) {
  uint64_t *r = hold ? &e->hold_ref : &e->dyn_ref;
  if (*r != MAP_REF_INF && *r > 0)
    --*r;
  return map_total_ref(e);
}

void map_reset_ref(struct map_entry *e, int hold) {
  uint64_t *r = hold ? &e->hold_ref : &e->dyn_ref;
  if (*r != MAP_REF_INF)
    *r = 1;
}

int map_dec_should_remove(const struct map_entry *e, int hold,
                          int after_reset) {
  uint64_t mine = hold ? e->hold_ref : e->dyn_ref;
  uint64_t other = hold ? e->dyn_ref : e->hold_ref;
  if (other > 0)
    return 0;
  if (after_reset)
    return mine != MAP_REF_INF;
  return mine == 1;
}

const char *map_ref_str(uint64_t ref, char *buf) {
  if (ref == MAP_REF_INF)
    return "INF";
  snprintf(buf, 24, "%lu", (unsigned long)ref);
  return buf;
}

/* ---- shadow pointers ---- */

struct map_shadow *map_shadow_find(struct map_entry *e, uintptr_t hst_addr) {
  for (int i = 0; i < e->nshadows; i++)
    if (e->shadows[i].hst_addr == hst_addr)
      return &e->shadows[i];
  return NULL;
}

struct map_shadow *map_shadow_add(struct map_entry *e, uintptr_t hst_addr) {
  struct map_shadow *s = map_shadow_find(e, hst_addr);
  if (s)
    return s;
  if (e->nshadows == e->cap_shadows) {
    int cap = e->cap_shadows ? 2 * e->cap_shadows : 4;
    struct map_shadow *n = realloc(e->shadows, (size_t)cap * sizeof *n);
    if (!n)
      return NULL;
    e->shadows = n;
    e->cap_shadows = cap;
  }
  s = &e->shadows[e->nshadows++];
  memset(s, 0, sizeof *s);
  s->hst_addr = hst_addr;
  return s;
}

void map_shadow_erase(struct map_table *t, struct map_entry *e, int i) {
  struct map_shadow *s = &e->shadows[i];
  struct map_entry *pe = s->hst_obj ? map_find(t, s->hst_obj) : NULL;
  if (pe)
    map_backref_drop(pe, e, s->hst_addr);
  e->shadows[i] = e->shadows[--e->nshadows];
}

int map_backref_add(struct map_entry *pe, struct map_entry *holder,
                    uintptr_t hst_addr) {
  for (int i = 0; i < pe->nrefs; i++)
    if (pe->refs[i].holder == holder && pe->refs[i].hst_addr == hst_addr)
      return 0;
  if (pe->nrefs == pe->cap_refs) {
    int cap = pe->cap_refs ? 2 * pe->cap_refs : 2;
    struct map_backref *n = realloc(pe->refs, (size_t)cap * sizeof *n);
    if (!n)
      return -1;
    pe->refs = n;
    pe->cap_refs = cap;
  }
  pe->refs[pe->nrefs++] = (struct map_backref){holder, hst_addr};
  return 0;
}

void map_backref_drop(struct map_entry *pe, struct map_entry *holder,
                      uintptr_t hst_addr) {
  for (int i = 0; i < pe->nrefs; i++)
    if (pe->refs[i].holder == holder && pe->refs[i].hst_addr == hst_addr) {
      pe->refs[i] = pe->refs[--pe->nrefs];
      return;
    }
}

/* ---- declare-target globals (called by the core) ---- */

int rt_map_global(struct rt_device *d, void *hst, size_t size, void *tgt,
                  const char *name) {
  int rc = 0;
  pthread_mutex_lock(&d->map_lock);
  struct map_table *t = map_table_of(d);
  struct map_lookup lr;
  if (!t) {
    rc = -1;
  } else {
    map_lookup(t, (uintptr_t)hst, (int64_t)size, &lr);
    if (lr.entry) {
      RT_TRACE(2, "device %d: global %s at " OMPEMU_PTR " already mapped",
               d->id, name ? name : "?", OMPEMU_P(hst));
    } else if (!map_insert(t, (uintptr_t)hst, (uintptr_t)hst,
                           (uintptr_t)hst + size, (uintptr_t)tgt, NULL,
                           MAP_REF_INF, 0, MAP_KIND_GLOBAL)) {
      rc = -1;
    } else {
      RT_TRACE(1, "device %d: map global %s host [" OMPEMU_PTR ", " OMPEMU_PTR
               ") -> device " OMPEMU_PTR " (%zu bytes, refcount INF)",
               d->id, name ? name : "?", OMPEMU_P(hst),
               OMPEMU_P((char *)hst + size), OMPEMU_P(tgt), size);
    }
  }
  pthread_mutex_unlock(&d->map_lock);
  if (rc)
    ompemu_error("ompemu", "device %d: cannot map global %s at " OMPEMU_PTR
                 ": out of memory", d->id, name ? name : "?", OMPEMU_P(hst));
  return rc;
}

void rt_unmap_globals(struct rt_device *d, const void *begin,
                      const void *end) {
  pthread_mutex_lock(&d->map_lock);
  struct map_table *t = d->maps;
  struct map_entry *e = t ? map_first_from(t, (uintptr_t)begin) : NULL;
  while (e && e->hst_begin < (uintptr_t)end) {
    /* Nodes keep their identity across rebalancing: NEXT stays valid. */
    struct map_entry *next = upper_entry(t, e->hst_begin);
    if (e->kind == MAP_KIND_GLOBAL && e->hst_end <= (uintptr_t)end) {
      RT_TRACE(2, "device %d: unmap global host " OMPEMU_PTR, d->id,
               OMPEMU_P(e->hst_begin));
      map_remove(t, e);
    }
    e = next;
  }
  pthread_mutex_unlock(&d->map_lock);
}
