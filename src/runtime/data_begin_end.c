/* Data begin and data end (docs/abi-clang14-runtime.md section 7.4): getTargetPointer,
 * reference counts with their INFO notes, PTR_AND_OBJ attachment, struct
 * (MEMBER_OF) entries in any order, RETURN_PARAM, deferred removal; clang
 * 22's ATTACH entries map nothing here (attach_entries.c after begin).  Each
 * argument is handled under the device's map_lock, taken and released per
 * argument, and dropped around allocations and copies: the entry is
 * marked busy meanwhile (mapping.h). */
#include "config.h"
#include "data.h"
#include "locstr.h"
#include "mapping.h"
#include "observe.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#define SKIP_TYPES                                                            \
  (OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PRIVATE | OMP_TGT_MAPTYPE_ATTACH)

static const char *null_reason(int present) {
  return present ? "'present' map type modifier"
                 : "device failure or illegal mapping";
}

/* LLVM 14's message for a 'present' map of [BEGIN, BEGIN+SIZE) that is not
 * mapped. */
static void not_present(uintptr_t begin, int64_t size) {
  rt_message("device mapping required by 'present' map type modifier does "
             "not exist for host address " OMPEMU_PTR " (%ld bytes)",
             OMPEMU_P(begin), (long)size);
}

/* Result of get_target_pointer. */
struct tpr {
  uintptr_t tgt;
  int is_new, is_host;
  int unlocked; /* a new entry, released without the map lock, which is
                 * not held any more; ENTRY may be gone */
  struct map_entry *entry;
};

/* Copy [BEGIN, BEGIN+SIZE) to TGT inside E, which the caller made busy,
 * without the map lock (held on entry and on return), then re-write E's
 * attached pointers in that range.  0 / -1 (reported). */
/* The name a copy of entry I's bytes goes by: I's own when it has an
 * expression (a member's `this->d`, `s%acc`), else its mapping's. */
static const char *copy_name(const char *name, const struct map_entry *e) {
  /* Nobody looks at it (rt_copy_to and rt_copy_from name a copy only in
   * these three places): not worth parsing on every launch. */
  if (!rt_info(RT_INFO_DATA_TRANSFER) && !OMPEMU_TRACE_ON(1) &&
      !OBS_WANTS_VAR())
    return name;
  return map_name_has_expr(name) || !e->name ? name : e->name;
}

static int copy_to_unlocked(struct rt_op *op, struct map_entry *e,
                            uintptr_t begin, uintptr_t tgt, int64_t size,
                            const char *name) {
  biaslock_unlock(&op->d->map_lock);
  int rc = rt_copy_to(op, NULL, begin, tgt, size, name);
  biaslock_lock(&op->d->map_lock);
  if (rc == 0 && e->nshadows)
    rc = rt_reattach_range(op, e, begin, size);
  return rc;
}

/* A new entry for [BEGIN, BEGIN+SIZE): inserted busy, then allocated and
 * filled without the map lock (held on entry; on return only when R->tgt
 * is 0), so that threads mapping other data do not wait for this one, and
 * released without it (R->unlocked).  Sets R; -1 only when the copy
 * failed. */
static int new_entry(struct rt_op *op, struct map_table *t, uintptr_t begin,
                     uintptr_t base, int64_t size, const char *name,
                     int64_t type, int to, int hold, struct tpr *r) {
  int32_t dev = RT_DEV_ID(op);
  char nm[256], dyn[24], hl[24];
  struct map_entry *e =
      map_insert(t, base, begin, begin + (uintptr_t)size, 0, name,
                 hold ? 0 : 1, hold ? 1 : 0, MAP_KIND_MAPPED);
  if (!e) {
    ompemu_error("ompemu", "device %d: out of memory recording the "
                 "mapping of host [" OMPEMU_PTR ", " OMPEMU_PTR ")", dev,
                 OMPEMU_P(begin), OMPEMU_P(begin + (uintptr_t)size));
    return 0;
  }
  e->busy = 1;
  e->born = op->stamp; /* 0 unless the list attaches (rt_data_begin) */
  biaslock_unlock(&op->d->map_lock);
  OBS_VAR(name);
  void *p = rt_dev_alloc(op->d, size, (void *)begin, TARGET_ALLOC_DEFAULT);
  if (!p) {
    DTRACE(1, "device %d: allocation of %ld bytes for host " OMPEMU_PTR
             " failed", dev, (long)size, OMPEMU_P(begin));
    biaslock_lock(&op->d->map_lock);
    map_remove(t, e);
    return 0;
  }
  /* E is ours until released: its counts can be read without the lock. */
  if (rt_info(RT_INFO_MAPPING_CHANGED))
    rt_info_msg(dev,
                "Creating new map entry with HstPtrBegin=" OMPEMU_PTR
                ", TgtPtrBegin=" OMPEMU_PTR ", Size=%ld, DynRefCount=%s, "
                "HoldRefCount=%s, Name=%s",
                OMPEMU_P(begin), OMPEMU_P(p), (long)size,
                map_ref_str(e->dyn_ref, dyn), map_ref_str(e->hold_ref, hl),
                rt_name_str(name, nm, sizeof nm));
  DTRACE(1, "device %d: map %s host [" OMPEMU_PTR ", " OMPEMU_PTR
           ") base " OMPEMU_PTR ": new at " OMPEMU_PTR ", dyn %s hold %s",
           dev, rt_name_str(name, nm, sizeof nm), OMPEMU_P(begin),
           OMPEMU_P(begin + (uintptr_t)size), OMPEMU_P(base),
           OMPEMU_P(p), map_ref_str(e->dyn_ref, dyn),
           map_ref_str(e->hold_ref, hl));
  OBS_MAP(op->d, OBS_MAP_NEW, begin, p, size, name, e->dyn_ref, e->hold_ref,
          type);
  int rc = to ? rt_copy_to(op, NULL, begin, (uintptr_t)p, size, name) : 0;
  e->tgt_begin = (uintptr_t)p;
  r->is_new = 1;
  r->tgt = (uintptr_t)p;
  r->entry = e;
  r->unlocked = 1;
  map_release_unlocked(t, &op->d->map_lock, e);
  return rc;
}

/* LLVM 14's getTargetPointer for [BEGIN, BEGIN+SIZE) (caller holds the map
 * lock; it is dropped and taken again around allocations and copies):
 * reuse, refuse, pass through (USM), allocate; copy when TO and new or
 * ALWAYS.  R->tgt is 0 when there is no device address; returns -1 only
 * when a copy failed. */
static int get_target_pointer(struct rt_op *op, struct map_table *t,
                              uintptr_t begin, uintptr_t base, int64_t size,
                              const char *name, int64_t type, int update_ref,
                              struct tpr *r) {
  int to = (type & OMP_TGT_MAPTYPE_TO) != 0;
  int always = (type & OMP_TGT_MAPTYPE_ALWAYS) != 0;
  int implicit = (type & OMP_TGT_MAPTYPE_IMPLICIT) != 0;
  int close = (type & OMP_TGT_MAPTYPE_CLOSE) != 0;
  int present = (type & OMP_TGT_MAPTYPE_PRESENT) != 0;
  int hold = (type & OMP_TGT_MAPTYPE_OMPX_HOLD) != 0;
  int32_t dev = RT_DEV_ID(op);
  char nm[256], dyn[24], hl[24];
  struct map_lookup lr;
  memset(r, 0, sizeof *r);
  map_lookup_ready(t, &op->d->map_lock, begin, size, &lr);

  if (lr.contained || ((lr.extends_before || lr.extends_after) && implicit)) {
    struct map_entry *e = lr.entry;
    const char *action;
    if (update_ref) {
      map_inc_ref(e, hold);
      action = " (incremented)";
    } else {
      /* No reference of its own (a member, a mapper's component 0 for a
       * member or pointee): copied when this construct created the
       * storage.  LLVM 14 to 19 guess that from a total count of 1,
       * which also holds for storage a mapper left mapped (a count of 1
       * nothing drops). */
      r->is_new = op->stamp ? e->born == op->stamp : map_total_ref(e) == 1;
      action = " (update suppressed)";
    }
    r->tgt = e->tgt_begin + (begin - e->hst_begin);
    r->entry = e;
    if (rt_info(RT_INFO_MAPPING_EXISTS))
      rt_info_msg(dev,
                  "Mapping exists%s with HstPtrBegin=" OMPEMU_PTR
                  ", TgtPtrBegin=" OMPEMU_PTR ", Size=%ld, DynRefCount=%s%s, "
                  "HoldRefCount=%s%s, Name=%s",
                  implicit ? " (implicit)" : "", OMPEMU_P(begin),
                  OMPEMU_P(r->tgt), (long)size, map_ref_str(e->dyn_ref, dyn),
                  hold ? "" : action, map_ref_str(e->hold_ref, hl),
                  hold ? action : "", rt_name_str(name, nm, sizeof nm));
    DTRACE(1, "device %d: map %s host " OMPEMU_PTR " (%ld bytes): exists at "
             OMPEMU_PTR ", dyn %s hold %s%s", dev, rt_name_str(name, nm, sizeof nm),
             OMPEMU_P(begin), (long)size, OMPEMU_P(r->tgt),
             map_ref_str(e->dyn_ref, dyn), map_ref_str(e->hold_ref, hl), action);
    /* The entry's own name when it has one (flang names a derived type's
     * descriptor "unknown" where it creates it, `s%acc` in the member's
     * entry), else the mapping's. */
    OBS_MAP(op->d, OBS_MAP_EXISTS, begin, r->tgt, size,
            map_name_has_expr(name) ? name : e->name, e->dyn_ref,
            e->hold_ref, type);
    if (to && (r->is_new || always)) {
      e->busy = 1;
      int rc = copy_to_unlocked(op, e, begin, r->tgt, size,
                                copy_name(name, e));
      map_release(t, e);
      return rc;
    }
  } else if (lr.extends_before || lr.extends_after) {
    struct map_entry *e = lr.entry;
    rt_message("explicit extension not allowed: host address specified is "
               OMPEMU_PTR " (%ld bytes), but device allocation maps to host at "
               OMPEMU_PTR " (%ld bytes)", OMPEMU_P(begin), (long)size,
               OMPEMU_P(e->hst_begin), (long)(e->hst_end - e->hst_begin));
    OBS_MAP(op->d, OBS_MAP_REFUSED, begin, e->tgt_begin, size, name, 0, 0,
            type);
    if (present)
      not_present(begin, size);
  } else if (rt_usm() && !close) {
    if (size) {
      r->is_host = 1;
      r->tgt = begin;
      DTRACE(1, "device %d: map host " OMPEMU_PTR " (%ld bytes): unified "
               "shared memory, host address used", dev, OMPEMU_P(begin),
               (long)size);
    }
  } else if (present) {
    not_present(begin, size);
  } else if (size) {
    return new_entry(op, t, begin, base, size, name, type, to, hold, r);
  }
  return 0;
}

/* Whether argument I of A is a mapper's component 0 that holds no
 * reference (rt_mapper_holds_ref): it changes no count and is never
 * removed. */
static int no_ref_of_own(const struct rt_args *a, int32_t i) {
  return a->from_mapper && i == 0 && !a->mapper_ref;
}

/* One argument of data begin (caller holds the map lock; it may be
 * dropped and taken again, and is held on return when *HELD is 1). */
static int begin_one(struct rt_op *op, struct map_table *t,
                     const struct rt_args *a, int32_t i, int padded,
                     int *held) {
  int64_t type = a->types[i];
  uintptr_t begin = (uintptr_t)a->begin[i];
  uintptr_t base = (uintptr_t)a->base[i];
  int64_t size = a->sizes[i];
  const char *name = a->names ? a->names[i] : NULL;
  int present = (type & OMP_TGT_MAPTYPE_PRESENT) != 0;

  if (padded) {
    uintptr_t pad = rt_struct_pad(base, begin);
    if (pad) {
      DTRACE(2, "device %d: pad combined entry %d at " OMPEMU_PTR
               " down by %lu bytes", RT_DEV_ID(op), (int)i, OMPEMU_P(begin),
               (unsigned long)pad);
      begin -= pad;
      size += (int64_t)pad;
    }
  }
  int no_ref = no_ref_of_own(a, i);
  int update_ref = !(type & OMP_TGT_MAPTYPE_MEMBER_OF) && !no_ref;
  struct tpr ptr = {0};
  uintptr_t ptr_hst = 0;
  if (type & OMP_TGT_MAPTYPE_PTR_AND_OBJ) {
    /* Step 1: the pointer itself, no copy. */
    int64_t ptype = type & ~(int64_t)(OMP_TGT_MAPTYPE_TO |
                                      OMP_TGT_MAPTYPE_ALWAYS);
    if (get_target_pointer(op, t, base, base, sizeof(void *), NULL, ptype,
                           update_ref, &ptr)) {
      *held = !ptr.unlocked;
      return -1;
    }
    if (ptr.unlocked)
      biaslock_lock(&op->d->map_lock);
    if (!ptr.tgt) {
      rt_err("Call to getTargetPointer returned null pointer (%s).",
             null_reason(present));
      return -1;
    }
    ptr_hst = base;
    base = *(uintptr_t *)base;
    update_ref = !no_ref;
  }
  /* Step 2 (or the only step): the object. */
  struct tpr obj;
  if (get_target_pointer(op, t, begin, base, size, name, type, update_ref,
                         &obj)) {
    *held = !obj.unlocked;
    return -1;
  }
  /* A new entry (OBJ.tgt set) needs the lock again only to attach. */
  if (obj.unlocked) {
    if (type & OMP_TGT_MAPTYPE_PTR_AND_OBJ)
      biaslock_lock(&op->d->map_lock);
    else
      *held = 0;
  }
  if (!obj.tgt && (size || present)) {
    rt_err("Call to getTargetPointer returned null pointer (%s).",
           null_reason(present));
    return -1;
  }
  int kept = 0; /* OBJ.tgt is a host address kept (nothing to attach) */
  if (!obj.tgt && !size && (type & OMP_TGT_MAPTYPE_RETURN_PARAM)) {
    /* use_device_ptr of a pointer whose array is mapped from a later
     * element on: its device counterpart (as LLVM 19 does; LLVM 14
     * returned the host pointer). */
    struct map_entry *e = map_find_by_base(t, begin);
    if (e) {
      obj.tgt = e->tgt_begin + (begin - e->hst_begin);
    } else {
      if (!obj.is_host && rt_info(RT_INFO_EMPTY_MAPPING)) {
        char nm[256];
        rt_info_msg(RT_DEV_ID(op),
                    "variable %s does not have a valid device counterpart",
                    rt_name_str(name, nm, sizeof nm));
      }
      /* Not mapped: use_device_ptr and use_device_addr keep the original
       * value (OpenMP 5.1: the storage is taken to be device accessible
       * already), as LLVM 22 does; LLVM 14 to 19 gave NULL. */
      obj.tgt = begin;
      kept = 1;
      DTRACE(1, "device %d: use_device_ptr/addr of unmapped host " OMPEMU_PTR
               ": keeps its host value", RT_DEV_ID(op), OMPEMU_P(begin));
    }
  }
  /* What the launch's lookup of its argument I would find (args[i], not
   * the padded begin). */
  if (a == op->arg_list && obj.tgt && size)
    op->arg_tgt[i] = obj.tgt + ((uintptr_t)a->begin[i] - begin);
  if (type & OMP_TGT_MAPTYPE_RETURN_PARAM) {
    uintptr_t tbase = obj.tgt - (begin - base);
    DTRACE(2, "device %d: return device base " OMPEMU_PTR " for entry %d",
             RT_DEV_ID(op), OMPEMU_P(tbase), (int)i);
    a->base[i] = (void *)tbase;
  }
  /* Step 3: attach the pointer on the device.  The map lock may have been
   * dropped since step 1 (to fill the object): find the pointer's entry
   * again. */
  if ((type & OMP_TGT_MAPTYPE_PTR_AND_OBJ) && !obj.is_host && !ptr.is_host &&
      ptr.entry && !kept) {
    struct map_lookup lr;
    map_lookup_ready(t, &op->d->map_lock, ptr_hst, 0, &lr);
    if (!lr.contained) {
      DTRACE(1, "device %d: pointer at host " OMPEMU_PTR " was unmapped by "
               "another thread: not attached", RT_DEV_ID(op),
               OMPEMU_P(ptr_hst));
      return 0;
    }
    ptr.entry = lr.entry;
    ptr.tgt = lr.entry->tgt_begin + (ptr_hst - lr.entry->hst_begin);
    uintptr_t expected = obj.tgt - (begin - base);
    struct map_shadow *s = map_shadow_find(ptr.entry, ptr_hst);
    if (!s || s->tgt_val != expected || s->tgt_addr != ptr.tgt)
      return rt_attach(op, ptr.entry, ptr_hst, ptr.tgt, expected, begin,
                       obj.tgt);
    DTRACE(2, "device %d: pointer at host " OMPEMU_PTR " already attached "
             "to " OMPEMU_PTR, RT_DEV_ID(op), OMPEMU_P(ptr_hst),
             OMPEMU_P(expected));
  }
  return 0;
}

/* Whether list A needs its construct's stamp on the entries it creates:
 * it may attach (an ATTACH entry, or a mapper, whose components may hold
 * some), or has entries that map without a reference of their own (a
 * member, a mapper's first component), which copy only when this
 * construct created their storage. */
static int list_stamps(const struct rt_args *a) {
  for (int32_t i = 0; i < a->n; i++)
    if ((a->types[i] & (OMP_TGT_MAPTYPE_ATTACH | OMP_TGT_MAPTYPE_MEMBER_OF)) ||
        (a->mappers && a->mappers[i]))
      return 1;
  return 0;
}

/* The plan of list A (rt_plan_list) in *ORDER and *HAS_MEMBERS.  A
 * launch's own list is planned once, by its data begin, and its data end
 * takes the same plan (OP's buffers): the list does not change while the
 * kernel runs. */
static int plan(struct rt_op *op, const struct rt_args *a, int32_t **order,
                int **has_members) {
  if (a != op->arg_list || !op->plan_order)
    return rt_plan_list(a, *order, *has_members);
  if (!op->planned) {
    if (rt_plan_list(a, op->plan_order, op->plan_members))
      return -1;
    op->planned = 1;
  }
  *order = op->plan_order;
  *has_members = op->plan_members;
  return 0;
}

int rt_data_begin(struct rt_op *op, const struct rt_args *a) {
  if (a->n <= 0)
    return 0;
  LIST_BUF(int32_t, order_own, a->n);
  LIST_BUF(int, members_own, a->n);
  int32_t *order = order_own;
  int *has_members = members_own;
  int rc = -1;
  if (!order || !has_members) {
    rt_err("out of memory mapping %d arguments", (int)a->n);
    goto out;
  }
  if (plan(op, a, &order, &has_members))
    goto out;
  /* Only this construct's ATTACH entries and entries without a reference
   * of their own compare stamps (attach_entries.c, get_target_pointer),
   * and only with its own: a list with neither leaves its new entries
   * unstamped, which spares a locked increment of a global counter per
   * construct. */
  if (!op->stamp && list_stamps(a))
    (void)rt_attach_stamp(op);
  int attach = 0;
  for (int32_t k = 0; k < a->n; k++) {
    int32_t i = order[k];
    int64_t type = a->types[i];
    attach |= (type & OMP_TGT_MAPTYPE_ATTACH) != 0;
    if (type & SKIP_TYPES)
      continue;
    if (a->mappers && a->mappers[i]) {
      if (rt_data_mapper(op, a, i, RT_DATA_BEGIN, rt_data_begin))
        goto out;
      continue;
    }
    int padded = ompemu_parent_index(type) < 0 && has_members[i];
    biaslock_lock(&op->d->map_lock);
    struct map_table *t = map_table_of(op->d);
    int held = 1;
    int r = t ? begin_one(op, t, a, i, padded, &held) : -1;
    if (held)
      biaslock_unlock(&op->d->map_lock);
    if (r)
      goto out;
  }
  if (attach && rt_data_attach(op, a))
    goto out;
  rc = 0;
out:
  LIST_FREE(order_own);
  LIST_FREE(members_own);
  return rc;
}

/* An entry whose removal waits for the synchronize after the copies. */
struct dealloc {
  uintptr_t begin;
  int64_t size;
  int hold;
  struct map_entry *entry; /* what end_one found: valid until the map lock
                            * is dropped */
};

/* Whether DEL (N records) already removes entry E with the same kind of
 * reference HOLD: one construct that names the same storage twice (an
 * array and a Fortran pointer to it) removes it once, as LLVM's runtime
 * does since 16; a second removal would find no entry. */
static int already_removing(const struct dealloc *del, int n,
                            const struct map_entry *e, int hold) {
  for (int k = 0; k < n; k++)
    if (del[k].hold == hold && del[k].begin >= e->hst_begin &&
        del[k].begin < e->hst_end)
      return 1;
  return 0;
}

/* The entries a long list removes, by the start of their host range and
 * the kind of reference (a mapper over an array of structs: thousands),
 * for already_removing without a walk of DEL per argument.  Open
 * addressing; a zero word is empty. */
struct removing {
  uintptr_t *v;
  size_t mask;
};

static uintptr_t removing_key(const struct map_entry *e, int hold) {
  return (e->hst_begin << 1 | (uintptr_t)(hold != 0)) + 1;
}

static size_t removing_slot(const struct removing *rs, uintptr_t key) {
  size_t j = (size_t)(key * 0x9e3779b97f4a7c15u >> 17) & rs->mask;
  while (rs->v[j] && rs->v[j] != key)
    j = (j + 1) & rs->mask;
  return j;
}

static int is_removing(const struct dealloc *del, int n,
                       const struct removing *rs, const struct map_entry *e,
                       int hold) {
  if (!rs->v)
    return already_removing(del, n, e, hold);
  return rs->v[removing_slot(rs, removing_key(e, hold))] != 0;
}

static void add_removing(struct removing *rs, const struct map_entry *e,
                         int hold) {
  if (rs->v) {
    uintptr_t key = removing_key(e, hold);
    rs->v[removing_slot(rs, key)] = key;
  }
}

/* One argument of data end (caller holds the map lock; it may be dropped
 * and taken again).  Appends to DEL the entries to remove after
 * synchronization. */
static int end_one(struct rt_op *op, struct map_table *t,
                   const struct rt_args *a, int32_t i, struct dealloc *del,
                   int *ndel, struct removing *rs, uintptr_t *mapper_base) {
  int64_t type = a->types[i];
  uintptr_t begin = (uintptr_t)a->begin[i];
  int64_t size = a->sizes[i];
  int implicit = (type & OMP_TGT_MAPTYPE_IMPLICIT) != 0;
  int hold = (type & OMP_TGT_MAPTYPE_OMPX_HOLD) != 0;
  int force_delete = (type & OMP_TGT_MAPTYPE_DELETE) != 0;
  int present = (type & OMP_TGT_MAPTYPE_PRESENT) != 0;
  int is_member = (type & OMP_TGT_MAPTYPE_MEMBER_OF) &&
                  !(type & OMP_TGT_MAPTYPE_PTR_AND_OBJ);
  int no_ref = no_ref_of_own(a, i);
  int update_ref = !is_member && !no_ref;
  int32_t dev = RT_DEV_ID(op);
  char dyn[24], hl[24], nm[256];

  struct map_lookup lr;
  map_lookup_ready(t, &op->d->map_lock, begin, size, &lr);
  struct map_entry *e = NULL;
  uintptr_t tgt = 0;
  int is_last = 0, is_host = 0;
  if (lr.contained || (implicit && (lr.extends_before || lr.extends_after))) {
    e = lr.entry;
    is_last = map_dec_should_remove(e, hold, force_delete);
    /* A member's delete resets too: a structure element shares its
     * structure's reference count (OpenMP 5.2, 5.8.3), so the parent
     * entry's decrement that follows removes the structure. */
    if (force_delete)
      map_reset_ref(e, hold);
    const char *action;
    if (!update_ref) {
      action = " (update suppressed)";
    } else if (force_delete) {
      if (is_last) {
        action = " (reset, deferred final decrement)";
      } else {
        map_dec_ref(e, hold);
        action = " (reset)";
      }
    } else if (is_last) {
      action = " (deferred final decrement)";
    } else {
      map_dec_ref(e, hold);
      action = " (decremented)";
    }
    tgt = e->tgt_begin + (begin - e->hst_begin);
    if (rt_info(RT_INFO_MAPPING_EXISTS))
      rt_info_msg(dev,
                  "Mapping exists with HstPtrBegin=" OMPEMU_PTR
                  ", TgtPtrBegin=" OMPEMU_PTR ", Size=%ld, DynRefCount=%s%s, "
                  "HoldRefCount=%s%s",
                  OMPEMU_P(begin), OMPEMU_P(tgt), (long)size,
                  map_ref_str(e->dyn_ref, dyn), hold ? "" : action,
                  map_ref_str(e->hold_ref, hl), hold ? action : "");
    DTRACE(1, "device %d: unmap %s host " OMPEMU_PTR " (%ld bytes): dyn %s "
             "hold %s%s", dev, rt_name_str(e->name, nm, sizeof nm),
             OMPEMU_P(begin), (long)size, map_ref_str(e->dyn_ref, dyn),
             map_ref_str(e->hold_ref, hl), action);
    OBS_MAP(op->d, OBS_MAP_DECREMENT, begin, tgt, size, e->name, e->dyn_ref,
            e->hold_ref, type);
  } else if (rt_usm()) {
    is_host = 1;
    tgt = begin;
  }
  if (!tgt) {
    if (size || present) {
      if (present) {
        not_present(begin, size);
        return -1;
      }
      DTRACE(2, "device %d: unmap host " OMPEMU_PTR " (%ld bytes): not "
               "mapped, ignored", dev, OMPEMU_P(begin), (long)size);
    }
    return 0;
  }
  int del_entry = is_last && !is_member;
  if ((type & OMP_TGT_MAPTYPE_FROM) || del_entry) {
    if (type & OMP_TGT_MAPTYPE_FROM) {
      int always = (type & OMP_TGT_MAPTYPE_ALWAYS) != 0;
      int copy_member = 0;
      if (is_member && e) {
        /* A member is copied back when its parent goes away in this
         * construct: the reference count this construct drops (hold or
         * dynamic) must be the parent's last one. */
        int32_t p = ompemu_parent_index(type);
        struct map_entry *pe =
            p >= 0 && p < a->n ? map_find(t, (uintptr_t)a->begin[p]) : NULL;
        if (pe && map_dec_should_remove(pe, hold, force_delete))
          copy_member = 1;
      }
      if ((del_entry || always || copy_member) && !is_host) {
        /* E (not NULL: !is_host) stays, busy, while the lock is dropped. */
        e->busy = 1;
        biaslock_unlock(&op->d->map_lock);
        int rc = rt_copy_from(op, NULL, begin, tgt, size,
                              copy_name(a->names ? a->names[i] : NULL, e));
        biaslock_lock(&op->d->map_lock);
        map_release(t, e);
        if (rc)
          return -1;
      }
    }
    if (del_entry && no_ref) {
      del_entry = 0;
      *mapper_base = begin;
    }
    if (e && e->nshadows &&
        rt_restore_range(op, e, begin, size,
                         (type & OMP_TGT_MAPTYPE_FROM) != 0, del_entry))
      return -1;
    if (del_entry && !is_host && !is_removing(del, *ndel, rs, e, hold)) {
      add_removing(rs, e, hold);
      del[*ndel].begin = begin;
      del[*ndel].size = size;
      del[*ndel].hold = hold;
      del[*ndel].entry = e;
      ++*ndel;
    }
  }
  return 0;
}

/* What dealloc_locked removed, for dealloc_after. */
struct dealloced {
  int removed;
  void *to_free;
  uintptr_t hst_begin, hst_end, tgt_begin; /* what the entry was */
  const char *name;
};

/* Drop one reference of the entry holding [BEGIN, BEGIN+SIZE) and remove
 * it when none is left (caller holds the map lock; after the
 * synchronize).  KNOWN: that entry, when the caller has held the lock
 * since end_one found it (no lookup then).  Fills OUT for
 * dealloc_after. */
static int dealloc_locked(struct rt_op *op, const struct dealloc *x,
                          struct map_entry *known, struct dealloced *out) {
  int rc = 0;
  out->removed = 0;
  out->to_free = NULL;
  struct map_lookup lr;
  if (known)
    lr.entry = known;
  else
    map_lookup_ready(op->d->maps, &op->d->map_lock, x->begin, x->size, &lr);
  if (lr.entry) {
    struct map_entry *e = lr.entry;
    if (map_dec_ref(e, x->hold) == 0) {
      char nm[256];
      if (e->nrefs && rt_detach_pointee(op, e))
        rc = -1;
      /* Freed once the entry is gone and the lock dropped: nobody can
       * find the device memory any more. */
      if (e->kind == MAP_KIND_MAPPED)
        out->to_free = (void *)e->tgt_begin;
      out->hst_begin = e->hst_begin;
      out->hst_end = e->hst_end;
      out->tgt_begin = e->tgt_begin;
      out->name = e->name;
      out->removed = 1;
      if (rt_info(RT_INFO_MAPPING_CHANGED))
        rt_info_msg(op->d->id,
                    "Removing map entry with HstPtrBegin=" OMPEMU_PTR
                    ", TgtPtrBegin=" OMPEMU_PTR ", Size=%ld, Name=%s",
                    OMPEMU_P(e->hst_begin), OMPEMU_P(e->tgt_begin),
                    (long)x->size, rt_name_str(e->name, nm, sizeof nm));
      DTRACE(1, "device %d: remove %s host [" OMPEMU_PTR ", " OMPEMU_PTR
               ") device " OMPEMU_PTR, op->d->id,
               rt_name_str(e->name, nm, sizeof nm), OMPEMU_P(e->hst_begin),
               OMPEMU_P(e->hst_end), OMPEMU_P(e->tgt_begin));
      map_remove(op->d->maps, e);
    }
  } else {
    rt_err("Section to delete (hst addr " OMPEMU_PTR ") does not exist in the "
           "allocated memory", OMPEMU_P(x->begin));
    rc = -1;
  }
  return rc;
}

/* After dealloc_locked, without the map lock: free the device memory and
 * tell the observers. */
static int dealloc_after(struct rt_op *op, const struct dealloced *x) {
  int rc = 0;
  if (x->removed) {
    int64_t size = (int64_t)(x->hst_end - x->hst_begin);
    OBS_VAR_RANGE(x->name, x->hst_begin, size);
    if (x->to_free && rt_dev_free(op->d, x->to_free))
      rc = -1;
    OBS_MAP(op->d, OBS_MAP_REMOVE, x->hst_begin, x->tgt_begin, size,
            x->name, 0, 0, 0);
  }
  return rc;
}

static int dealloc_one(struct rt_op *op, const struct dealloc *x) {
  struct dealloced out;
  biaslock_lock(&op->d->map_lock);
  int rc = dealloc_locked(op, x, NULL, &out);
  biaslock_unlock(&op->d->map_lock);
  if (dealloc_after(op, &out))
    rc = -1;
  return rc;
}

int rt_data_end(struct rt_op *op, const struct rt_args *a) {
  if (a->n <= 0)
    return 0;
  LIST_BUF(int32_t, order_own, a->n);
  LIST_BUF(int, members_own, a->n);
  int32_t *order = order_own;
  int *has_members = members_own;
  LIST_BUF(struct dealloc, del, a->n);
  int ndel = 0, rc = -1;
  uintptr_t mapper_base = 0;
  struct removing rs = {NULL, 0};
  if (!order || !has_members || !del) {
    rt_err("out of memory unmapping %d arguments", (int)a->n);
    goto out;
  }
  if (a->n > 4 * SMALL_LIST) {
    size_t cap = 64;
    while (cap < 4 * (size_t)a->n)
      cap *= 2;
    rs.v = calloc(cap, sizeof *rs.v); /* NULL: walks, as a short list does */
    rs.mask = cap - 1;
  }
  if (plan(op, a, &order, &has_members))
    goto out;
  for (int32_t k = a->n - 1; k >= 0; k--) {
    int32_t i = order[k];
    int64_t type = a->types[i];
    if (type & SKIP_TYPES)
      continue;
    if (a->mappers && a->mappers[i]) {
      if (rt_data_mapper(op, a, i, RT_DATA_END, rt_data_end))
        goto out;
      continue;
    }
    biaslock_lock(&op->d->map_lock);
    struct map_table *t = map_table_of(op->d);
    int ndel_before = ndel;
    int r = t ? end_one(op, t, a, i, del, &ndel, &rs, &mapper_base) : -1;
    if (r == 0 && k == 0 && ndel == 1 && !mapper_base &&
        !op->async.Queue && !op->sync_failed) {
      /* The last argument, and nothing queued that the synchronize would
       * wait for: remove the one entry in the same hold of the lock (one
       * lock round trip less per launch of a single mapping), and, when
       * it was this argument's, without looking it up again. */
      struct dealloced out;
      r = dealloc_locked(op, &del[0], ndel_before == 0 ? del[0].entry : NULL,
                         &out);
      biaslock_unlock(&op->d->map_lock);
      if (dealloc_after(op, &out))
        r = -1;
      if (r) {
        rt_err("Deallocating data from device failed.");
        goto out;
      }
      rc = 0;
      goto out;
    }
    biaslock_unlock(&op->d->map_lock);
    if (r)
      goto out;
  }
  if (rt_op_sync(op))
    goto out;
  for (int k = 0; k < ndel; k++) {
    if (mapper_base && del[k].begin == mapper_base)
      continue;
    if (dealloc_one(op, &del[k])) {
      rt_err("Deallocating data from device failed.");
      goto out;
    }
  }
  rc = 0;
out:
  LIST_FREE(order_own);
  LIST_FREE(members_own);
  LIST_FREE(del);
  free(rs.v);
  return rc;
}
