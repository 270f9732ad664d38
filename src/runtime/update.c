/* `target update` (docs/abi-clang14-runtime.md section 7.4): contiguous ranges, and
 * non-contiguous ones (NON_CONTIG) walked from their descriptor_dim array
 * so that the right elements move (LLVM 14 moves the wrong ones).  FROM
 * restores attached host pointers; TO re-writes attached device pointers
 * (attach.c). */
#include "config.h"
#include "callsite.h"
#include "data.h"
#include "dwarf_member.h"
#include "locstr.h"
#include "mapping.h"
#include "observe.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

/* Update the contiguous host range [HP, HP+SIZE) of argument TYPE. */
static int update_piece(struct rt_op *op, uintptr_t hp, int64_t size,
                        int64_t type, const char *name) {
  int rc = 0;
  int32_t dev = RT_DEV_ID(op);
  biaslock_lock(&op->d->map_lock);
  struct map_lookup lr;
  map_lookup_ready(op->d->maps, &op->d->map_lock, hp, size, &lr);
  if (!lr.contained) {
    if (rt_usm()) {
      DTRACE(2, "device %d: update host " OMPEMU_PTR ": unified shared "
               "memory, nothing to do", dev, OMPEMU_P(hp));
    } else if (type & OMP_TGT_MAPTYPE_PRESENT) {
      rt_message("device mapping required by 'present' motion modifier does "
                 "not exist for host address " OMPEMU_PTR " (%ld bytes)",
                 OMPEMU_P(hp), (long)size);
      rc = -1;
    } else {
      DTRACE(1, "device %d: update host " OMPEMU_PTR " (%ld bytes): not "
               "mapped, nothing to do", dev, OMPEMU_P(hp), (long)size);
      OBS_MAP(op->d, OBS_MAP_ABSENT, hp, 0, size, name, 0, 0, type);
    }
    goto out;
  }
  struct map_entry *e = lr.entry;
  uintptr_t tgt = e->tgt_begin + (hp - e->hst_begin);
  rt_info_found(dev, e, hp, tgt, size);
  /* The copies are made without the lock, E busy meanwhile (mapping.h). */
  e->busy = 1;
  if (type & OMP_TGT_MAPTYPE_FROM) {
    biaslock_unlock(&op->d->map_lock);
    rc = rt_copy_from(op, NULL, hp, tgt, size, e->name);
    biaslock_lock(&op->d->map_lock);
    if (rc == 0 && e->nshadows && rt_restore_range(op, e, hp, size, 1, 0))
      rc = -1;
  }
  if (rc == 0 && (type & OMP_TGT_MAPTYPE_TO)) {
    biaslock_unlock(&op->d->map_lock);
    rc = rt_copy_to(op, NULL, hp, tgt, size, e->name);
    biaslock_lock(&op->d->map_lock);
    /* Attached device pointers in range get their device values back. */
    if (rc == 0 && e->nshadows && rt_reattach_range(op, e, hp, size))
      rc = -1;
  }
  map_release(op->d->maps, e);
out:
  biaslock_unlock(&op->d->map_lock);
  return rc;
}

/* Walk dimension J of a non-contiguous section at byte offset OFF.
 * UNIT[j] is the byte size of one element of dimension j. */
static int walk_dims(struct rt_op *op, uintptr_t base,
                     const __tgt_descriptor_dim *dims, const int64_t *unit,
                     int j, int last, int64_t off, int64_t type) {
  const __tgt_descriptor_dim *dd = &dims[j];
  int64_t start = off + dd->offset * unit[j];
  if (j == last) {
    if (dd->stride == unit[j])
      return update_piece(op, base + (uintptr_t)start, dd->count * unit[j],
                          type, NULL);
    for (int64_t k = 0; k < dd->count; k++)
      if (update_piece(op, base + (uintptr_t)(start + k * dd->stride), unit[j],
                       type, NULL))
        return -1;
    return 0;
  }
  for (int64_t k = 0; k < dd->count; k++)
    if (walk_dims(op, base, dims, unit, j + 1, last, start + k * dd->stride,
                  type))
      return -1;
  return 0;
}

/* The byte size of an element of each dimension of the array map name
 * NAME ("m[1:2:3][0:2:2]") refers to, from the debug information of the
 * object the name is in: into UNIT (N dimensions); 0 when unknown. */
static int array_units(const char *name, int64_t *unit, int n) {
  char expr[256], ln[32], path[1024];
  if (!map_name_expr(name, expr, sizeof expr) ||
      !callsite_object(name, path, sizeof path))
    return 0;
  unsigned line = loc_field(name, 2, ln, sizeof ln) ? (unsigned)atoi(ln) : 0;
  return dw_array_units(path, expr, line, unit, n);
}

/* A NON_CONTIG argument: NDIMS descriptors, outermost first, the last one
 * {0, 1, element size}.  Offsets count elements of their dimension,
 * strides are bytes (and include the section's step).  The element size
 * of the innermost dimension is the last descriptor's stride; an outer
 * dimension's element size is not passed (its stride folds in the
 * section's step: `m[1:2:3]` of `int m[8][4]` is {1, 2, 48}): it comes
 * from the array's declaration in the debug information (NAME, the map
 * name, with -g), else it is taken as the stride, right for a step of 1
 * (as LLVM does: an outer step with a lower bound other than 0 then
 * moves the wrong rows). */
static int update_noncontig(struct rt_op *op, void *base,
                            const __tgt_descriptor_dim *dims, int64_t ndims,
                            int64_t type, const char *name) {
  if (ndims < 1 || ndims > 64) {
    /* clang 22 sets NON_CONTIG on a strided section through a pointer
     * (`p[0:n:2]`) but passes the data and its size in bytes, no
     * descriptors: nothing says which elements to move (LLVM 22's
     * runtime crashes on it). */
    rt_err("non-contiguous update of host " OMPEMU_PTR ": bad dimension count "
           "%ld (the compiler passed no dimension descriptors: clang 22 does "
           "so for a strided section through a pointer; nothing copied)",
           OMPEMU_P(base), (long)ndims);
    return -1;
  }
  int64_t unit[64];
  int last = (int)ndims - 2;
  if (last < 0) { /* only the element descriptor */
    last = 0;
    unit[0] = dims[0].stride;
  } else {
    for (int j = 0; j < last; j++)
      unit[j] = dims[j].stride;
    unit[last] = dims[ndims - 1].stride;
    int64_t decl[64];
    if (last > 0 && array_units(name, decl, last + 1) &&
        decl[last] == unit[last]) {
      for (int j = 0; j < last; j++)
        unit[j] = decl[j];
      DTRACE(2, "device %d: non-contiguous update of host " OMPEMU_PTR
               ": outer dimensions' element sizes from the declaration",
               RT_DEV_ID(op), OMPEMU_P(base));
    }
  }
  DTRACE(2, "device %d: non-contiguous update of host " OMPEMU_PTR ", %ld "
           "dimensions", RT_DEV_ID(op), OMPEMU_P(base), (long)ndims);
  return walk_dims(op, (uintptr_t)base, dims, unit, 0, last, 0, type);
}

int rt_data_update(struct rt_op *op, const struct rt_args *a) {
  for (int32_t i = 0; i < a->n; i++) {
    int64_t type = a->types[i];
    if (type & (OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PRIVATE |
                OMP_TGT_MAPTYPE_ATTACH))
      continue;
    if (a->mappers && a->mappers[i]) {
      if (rt_data_mapper(op, a, i, RT_DATA_UPDATE, rt_data_update))
        return -1;
      continue;
    }
    int rc;
    if (type & OMP_TGT_MAPTYPE_NON_CONTIG)
      rc = update_noncontig(op, a->base[i], a->begin[i], a->sizes[i], type,
                            a->names ? a->names[i] : NULL);
    else
      rc = update_piece(op, (uintptr_t)a->begin[i], a->sizes[i], type,
                        a->names ? a->names[i] : NULL);
    if (rc)
      return -1;
  }
  return 0;
}
