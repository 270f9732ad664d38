/* Checking a map list's MEMBER_OF structure and its ATTACH entries before
 * anything is mapped, and the order to process it in: every parent before
 * its members (clang's order; a front end may list members first),
 * otherwise the given order.  A malformed list gets one error naming the
 * entries (index, host range, map type) and nothing is touched. */
#include "config.h"
#include "data.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entries that are no host range to map (an ATTACH entry's begin is its
 * pointee, its size the pointer's). */
#define SKIP_TYPES                                                            \
  (OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PRIVATE | OMP_TGT_MAPTYPE_ATTACH)
/* What an ATTACH entry may carry besides its bit: attach(always), and
 * flags that change nothing for it. */
#define ATTACH_OK                                                             \
  (OMP_TGT_MAPTYPE_ATTACH | OMP_TGT_MAPTYPE_ALWAYS | OMP_TGT_MAPTYPE_IMPLICIT | \
   OMP_TGT_MAPTYPE_CLOSE | OMP_TGT_MAPTYPE_PRESENT | OMP_TGT_MAPTYPE_OMPX_HOLD)

/* Host range of entry I as the mapping sees it: the pointee for a
 * PTR_AND_OBJ entry, begin..begin+size otherwise. */
static void range_of(const struct rt_args *a, int32_t i, uintptr_t *b,
                     uintptr_t *e) {
  *b = (uintptr_t)a->begin[i];
  *e = *b + (uintptr_t)a->sizes[i];
}

static void bad(const struct rt_args *a, int32_t i, int32_t j,
                const char *why) {
  uintptr_t b, e;
  range_of(a, i, &b, &e);
  if (j < 0 || j >= a->n) {
    rt_err("invalid map list: entry %d (host [" OMPEMU_PTR ", " OMPEMU_PTR
           "), map type 0x%lx) %s; nothing was mapped",
           (int)i, OMPEMU_P(b), OMPEMU_P(e), (unsigned long)a->types[i], why);
    return;
  }
  uintptr_t jb, je;
  range_of(a, j, &jb, &je);
  rt_err("invalid map list: entry %d (host [" OMPEMU_PTR ", " OMPEMU_PTR
         "), map type 0x%lx) %s entry %d (host [" OMPEMU_PTR ", " OMPEMU_PTR
         "), map type 0x%lx); nothing was mapped",
         (int)i, OMPEMU_P(b), OMPEMU_P(e), (unsigned long)a->types[i], why,
         (int)j, OMPEMU_P(jb), OMPEMU_P(je), (unsigned long)a->types[j]);
}

/* clang 22's form of a reference member (`int &d` in a struct, map(d)):
 * the parent P is the reference's storage, one pointer whose host value is
 * member I's begin, and I's base is the struct's address, not that
 * storage. */
static int reference_member(const struct rt_args *a, int32_t i, int32_t p) {
  void *held;
  if (a->sizes[p] != sizeof(void *) || !a->begin[p])
    return 0;
  memcpy(&held, a->begin[p], sizeof held);
  return held == a->begin[i] && (uintptr_t)a->base[i] <= (uintptr_t)a->begin[p];
}

/* Is [B, E) inside the range of some usable entry other than SELF? */
static int inside_some_entry(const struct rt_args *a, int32_t self,
                             uintptr_t b, uintptr_t e) {
  for (int32_t j = 0; j < a->n; j++) {
    if (j == self || (a->types[j] & SKIP_TYPES))
      continue;
    uintptr_t jb, je;
    range_of(a, j, &jb, &je);
    if (b >= jb - rt_struct_pad((uintptr_t)a->base[j], jb) && e <= je)
      return 1;
  }
  return 0;
}

/* Whether [B, E) of entry SELF, a member of P, lies in the object another
 * member of P points to (a PTR_AND_OBJ entry: flang maps the heap object
 * of an allocatable or pointer derived type so, as a member of its
 * descriptor, then that object's components as members of the descriptor
 * too, `map(tofrom: x, x%a)` for `type(t), allocatable :: x`). */
static int inside_pointee_of(const struct rt_args *a, int32_t self, int32_t p,
                             uintptr_t b, uintptr_t e) {
  for (int32_t j = 0; j < a->n; j++) {
    if (j == self || !(a->types[j] & OMP_TGT_MAPTYPE_PTR_AND_OBJ) ||
        (a->types[j] & SKIP_TYPES) || ompemu_parent_index(a->types[j]) != p)
      continue;
    uintptr_t jb, je;
    range_of(a, j, &jb, &je);
    if (b >= jb && e <= je)
      return 1;
  }
  return 0;
}

/* Append I and, recursively, its members (in list order) to ORDER. */
static void emit(const struct rt_args *a, int32_t i, int32_t *order,
                 int32_t *k, const int32_t *first_child,
                 const int32_t *next_sibling) {
  order[(*k)++] = i;
  for (int32_t c = first_child[i]; c >= 0; c = next_sibling[c])
    emit(a, c, order, k, first_child, next_sibling);
}

/* rt_plan_list for a list with MEMBER_OF entries. */
static int __attribute__((noinline))
plan_members(const struct rt_args *a, int32_t *order, int *has_members) {
  int32_t n = a->n;
  int32_t small[64];
  int32_t *first_child =
      n <= 32 ? small : malloc(2 * (size_t)n * sizeof(int32_t));
  if (!first_child) {
    rt_err("out of memory checking a map list of %d entries", (int)n);
    return -1;
  }
  if (a->from_mapper) {
    /* Mapper components carry MEMBER_OF values offset by the caller's list
     * (they can even point at each other); LLVM 14 uses them only as
     * flags there: keep the given order and its padding rule. */
    for (int32_t i = 0; i < n; i++) {
      order[i] = i;
      has_members[i] = ompemu_parent_index(a->types[i]) < 0 && i + 1 < n &&
                       ompemu_parent_index(a->types[i + 1]) == i;
    }
    if (first_child != small)
      free(first_child);
    return 0;
  }
  int32_t *next_sibling = first_child + n;
  int32_t *last_child = order; /* scratch until the order is built */
  int rc = -1;
  for (int32_t i = 0; i < n; i++) {
    first_child[i] = next_sibling[i] = last_child[i] = -1;
    has_members[i] = 0;
  }
  for (int32_t i = 0; i < n; i++) {
    int32_t p = ompemu_parent_index(a->types[i]);
    if (p < 0)
      continue;
    if (p >= n) {
      char why[96];
      snprintf(why, sizeof why, "is MEMBER_OF(%d), but the list has %d entries",
               (int)p + 1, (int)n);
      bad(a, i, -1, why);
      goto out;
    }
    if (p == i) {
      bad(a, i, -1, "is a member of itself");
      goto out;
    }
    has_members[p] = 1;
    if (last_child[p] < 0)
      first_child[p] = i;
    else
      next_sibling[last_child[p]] = i;
    last_child[p] = i;
  }
  /* A chain of parents must end at an entry without a parent. */
  for (int32_t i = 0; i < n; i++) {
    int32_t p = i, steps = 0;
    while (ompemu_parent_index(a->types[p]) >= 0 && steps <= n) {
      p = ompemu_parent_index(a->types[p]);
      steps++;
    }
    if (steps > n) {
      bad(a, i, ompemu_parent_index(a->types[i]),
          "has no parent at the top of its chain (MEMBER_OF cycle) through");
      goto out;
    }
  }
  {
    for (int32_t i = 0; i < n; i++) {
      int32_t p = ompemu_parent_index(a->types[i]);
      if (p < 0 || (a->types[i] & SKIP_TYPES))
        continue;
      uintptr_t pb, pe, b, e;
      range_of(a, p, &pb, &pe);
      pb -= rt_struct_pad((uintptr_t)a->base[p], pb);
      if (a->types[i] & OMP_TGT_MAPTYPE_PTR_AND_OBJ) {
        /* The pointer slot must lie in the parent (or, for chains such as
         * a->b->c, in another entry of the list).  A RETURN_PARAM entry's
         * base is the device address data begin returned (use_device_addr
         * of a reference member, clang 22) when data end sees it. */
        b = (uintptr_t)a->base[i];
        e = b + sizeof(void *);
        if (!(b >= pb && e <= pe) && !inside_some_entry(a, i, b, e) &&
            !(a->types[i] & (OMP_TGT_MAPTYPE_IMPLICIT |
                             OMP_TGT_MAPTYPE_RETURN_PARAM)) &&
            !reference_member(a, i, p)) {
          char why[96];
          snprintf(why, sizeof why, "has its pointer (host " OMPEMU_PTR
                   ") outside its parent", OMPEMU_P(b));
          bad(a, i, p, why);
          goto out;
        }
        continue;
      }
      range_of(a, i, &b, &e);
      /* clang 14 lists implicit members wholly outside the parent for
       * pointer chains (map(spp[0][0])): those map on their own.  Explicit
       * ones, and any straddling the parent's bounds, are refused. */
      int disjoint = e <= pb || b >= pe;
      if (a->sizes[i] > 0 && !(b >= pb && e <= pe) &&
          !(disjoint && (a->types[i] & OMP_TGT_MAPTYPE_IMPLICIT)) &&
          !inside_pointee_of(a, i, p, b, e)) {
        bad(a, i, p, "lies outside its parent");
        goto out;
      }
      for (int32_t j = first_child[p]; j >= 0 && j < i; j = next_sibling[j]) {
        if ((a->types[j] & (OMP_TGT_MAPTYPE_PTR_AND_OBJ | SKIP_TYPES)) ||
            a->sizes[j] <= 0 || a->sizes[i] <= 0)
          continue;
        uintptr_t jb, je;
        range_of(a, j, &jb, &je);
        /* clang lists a whole member with sub-members of it (map(s, s.x)):
         * nesting is fine, a partial overlap is not. */
        int nested = (b >= jb && e <= je) || (jb >= b && je <= e);
        if (b < je && jb < e && !nested) {
          bad(a, i, j, "overlaps its sibling");
          goto out;
        }
      }
    }
  }
  int32_t k = 0;
  for (int32_t i = 0; i < n; i++)
    if (ompemu_parent_index(a->types[i]) < 0)
      emit(a, i, order, &k, first_child, next_sibling);
  if (k != n) {
    rt_err("invalid map list: %d of %d entries are not reachable from a "
           "parent entry; nothing was mapped", (int)(n - k), (int)n);
    goto out;
  }
  rc = 0;
out:
  if (first_child != small)
    free(first_child);
  return rc;
}

/* ATTACH entry I (clang 22): a pointer-sized entry, on its own, that maps
 * no data; and no entry is its member.  0 / -1 (reported). */
static int check_attach(const struct rt_args *a, int32_t i) {
  int64_t type = a->types[i];
  char why[160];
  if (type & OMP_TGT_MAPTYPE_MEMBER_OF) {
    bad(a, i, ompemu_parent_index(type),
        "is an ATTACH entry, which cannot be a member (MEMBER_OF) of");
    return -1;
  }
  if (type & ~(int64_t)ATTACH_OK) {
    snprintf(why, sizeof why, "is an ATTACH entry with map type bits 0x%lx, "
             "which an ATTACH entry cannot have (it maps no data)",
             (unsigned long)(type & ~(int64_t)ATTACH_OK));
    bad(a, i, -1, why);
    return -1;
  }
  if (a->sizes[i] != (int64_t)sizeof(void *)) {
    snprintf(why, sizeof why, "is an ATTACH entry of %ld bytes; ompemu "
             "attaches %zu-byte pointers only (no descriptors)",
             (long)a->sizes[i], sizeof(void *));
    bad(a, i, -1, why);
    return -1;
  }
  if (!a->base[i]) {
    bad(a, i, -1, "is an ATTACH entry whose pointer address (base) is NULL");
    return -1;
  }
  return 0;
}

/* Every ATTACH entry of A checked, and no entry a member of one; sets
 * *MEMBERS when A has MEMBER_OF entries.  0 / -1 (reported). */
static int check_attach_entries(const struct rt_args *a, int *members) {
  *members = 0;
  for (int32_t i = 0; i < a->n; i++) {
    int64_t type = a->types[i];
    if ((type & OMP_TGT_MAPTYPE_ATTACH) && check_attach(a, i))
      return -1;
    int32_t p = ompemu_parent_index(type);
    if (p < 0)
      continue;
    *members = 1;
    if (!a->from_mapper && p < a->n &&
        (a->types[p] & OMP_TGT_MAPTYPE_ATTACH)) {
      bad(a, i, p, "is a member of an ATTACH entry,");
      return -1;
    }
  }
  return 0;
}

int rt_plan_list(const struct rt_args *a, int32_t *order, int *has_members) {
  int32_t n = a->n;
  int members;
  if (check_attach_entries(a, &members))
    return -1;
  if (members)
    return plan_members(a, order, has_members);
  /* The usual list has no MEMBER_OF entry: nothing more to check, and
   * the given order. */
  for (int32_t i = 0; i < n; i++) {
    order[i] = i;
    has_members[i] = 0;
  }
  return 0;
}
