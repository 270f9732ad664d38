/* Pointer attachment (PTR_AND_OBJ, struct and descriptor members) and the
 * copies that must respect it.  An attached pointer has a shadow record in
 * the entry holding it: host value, device slot, device value.  Any
 * host->device copy of a range holding attached pointers re-writes their
 * device values afterwards, so the order of map entries (parent before or
 * after member, ALWAYS, `target update to` of the parent) never leaves a
 * host pointer on the device; device->host copies put the host values back.
 * Callers hold the device's map_lock. */
#include "config.h"
#include "data.h"
#include "mapping.h"
#include "observe.h"
#include "trace.h"

#include <string.h>

int rt_copy_to(struct rt_op *op, struct map_entry *e, uintptr_t hst,
               uintptr_t tgt, int64_t size, const char *name) {
  char nm[256];
  if (rt_info(RT_INFO_DATA_TRANSFER))
    rt_info_msg(RT_DEV_ID(op),
                "Copying data from host to device, HstPtr=" OMPEMU_PTR
                ", TgtPtr=" OMPEMU_PTR ", Size=%ld, Name=%s",
                OMPEMU_P(hst), OMPEMU_P(tgt), (long)size,
                rt_name_str(name, nm, sizeof nm));
  DTRACE(1, "device %d: copy to device host [" OMPEMU_PTR ", " OMPEMU_PTR
           ") -> " OMPEMU_PTR " (%ld bytes, %s)", RT_DEV_ID(op), OMPEMU_P(hst),
           OMPEMU_P(hst + (uintptr_t)size), OMPEMU_P(tgt), (long)size,
           rt_name_str(name, nm, sizeof nm));
  OBS_VAR(name);
  if (rt_dev_submit(op->d, (void *)tgt, (void *)hst, size, &op->async)) {
    rt_err("Copying data to device failed.");
    return -1;
  }
  if (e && e->nshadows)
    return rt_reattach_range(op, e, hst, size);
  return 0;
}

int rt_copy_from(struct rt_op *op, struct map_entry *e, uintptr_t hst,
                 uintptr_t tgt, int64_t size, const char *name) {
  char nm[256];
  (void)e;
  if (rt_info(RT_INFO_DATA_TRANSFER))
    rt_info_msg(RT_DEV_ID(op),
                "Copying data from device to host, TgtPtr=" OMPEMU_PTR
                ", HstPtr=" OMPEMU_PTR ", Size=%ld, Name=%s",
                OMPEMU_P(tgt), OMPEMU_P(hst), (long)size,
                rt_name_str(name, nm, sizeof nm));
  DTRACE(1, "device %d: copy to host " OMPEMU_PTR " -> host [" OMPEMU_PTR
           ", " OMPEMU_PTR ") (%ld bytes, %s)", RT_DEV_ID(op), OMPEMU_P(tgt),
           OMPEMU_P(hst), OMPEMU_P(hst + (uintptr_t)size), (long)size,
           rt_name_str(name, nm, sizeof nm));
  OBS_VAR(name);
  if (rt_dev_retrieve(op->d, (void *)hst, (void *)tgt, size, &op->async)) {
    rt_err("Copying data from device failed.");
    return -1;
  }
  return 0;
}

/* Submit the pointer value VAL to device address TGT_ADDR from a buffer
 * that lives until the construct's final synchronize. */
static int put_ptr(struct rt_op *op, uintptr_t tgt_addr, uintptr_t val,
                   const char *name, int info) {
  char nm[256];
  uintptr_t *slot = rt_op_slot(op);
  if (!slot) {
    rt_err("Copying data to device failed.");
    return -1;
  }
  *slot = val;
  if (info && rt_info(RT_INFO_DATA_TRANSFER))
    rt_info_msg(RT_DEV_ID(op),
                "Copying data from host to device, HstPtr=" OMPEMU_PTR
                ", TgtPtr=" OMPEMU_PTR ", Size=%ld, Name=%s",
                OMPEMU_P(slot), OMPEMU_P(tgt_addr), (long)sizeof(void *),
                rt_name_str(name, nm, sizeof nm));
  OBS_VAR(name);
  if (rt_dev_submit(op->d, (void *)tgt_addr, slot, sizeof(void *),
                    &op->async)) {
    rt_err("Copying data to device failed.");
    return -1;
  }
  return 0;
}

int rt_attach(struct rt_op *op, struct map_entry *e, uintptr_t hst_addr,
              uintptr_t tgt_addr, uintptr_t tgt_val, uintptr_t hst_obj,
              uintptr_t tgt_obj) {
  struct map_table *t = op->d->maps;
  struct map_shadow *s = map_shadow_find(e, hst_addr);
  int fresh = s == NULL;
  if (s) {
    struct map_entry *old = s->hst_obj ? map_find(t, s->hst_obj) : NULL;
    if (old)
      map_backref_drop(old, e, hst_addr);
  } else {
    s = map_shadow_add(t, e, hst_addr);
    if (!s) {
      rt_err("Cannot record attached pointer at host " OMPEMU_PTR
             ": out of memory", OMPEMU_P(hst_addr));
      return -1;
    }
  }
  if (fresh) {
    /* What the device slot goes back to when the pointee is unmapped: a
     * declare-target global (a link variable's reference pointer) keeps
     * its device value, anything else gets NULL (never a host address). */
    s->tgt_old = 0;
    if (e->kind == MAP_KIND_GLOBAL &&
        (rt_op_sync(op) ||
         rt_dev_retrieve(op->d, &s->tgt_old, (void *)tgt_addr,
                         sizeof(void *), NULL)))
      s->tgt_old = 0;
  }
  s->hst_val = *(uintptr_t *)hst_addr;
  s->tgt_addr = tgt_addr;
  s->tgt_val = tgt_val;
  s->hst_obj = hst_obj;
  s->tgt_obj = tgt_obj;
  struct map_entry *pe = map_find(t, hst_obj);
  if (pe && map_backref_add(t, pe, e, hst_addr)) {
    rt_err("Cannot record attached pointer at host " OMPEMU_PTR
           ": out of memory", OMPEMU_P(hst_addr));
    return -1;
  }
  DTRACE(1, "device %d: attach pointer at host " OMPEMU_PTR " (host value "
           OMPEMU_PTR "): device slot " OMPEMU_PTR " = " OMPEMU_PTR,
           RT_DEV_ID(op), OMPEMU_P(hst_addr), OMPEMU_P(s->hst_val),
           OMPEMU_P(tgt_addr), OMPEMU_P(tgt_val));
  return put_ptr(op, tgt_addr, tgt_val, e->name, 1);
}

int rt_detach_pointee(struct rt_op *op, struct map_entry *pe) {
  int rc = 0;
  uintptr_t end = pe->tgt_begin + (pe->hst_end - pe->hst_begin);
  while (pe->nrefs) {
    struct map_backref r = pe->refs[pe->nrefs - 1];
    struct map_shadow *s = map_shadow_find(r.holder, r.hst_addr);
    if (!s) {
      pe->nrefs--;
      continue;
    }
    if (s->tgt_obj >= pe->tgt_begin && s->tgt_obj < end) {
      DTRACE(1, "device %d: detach pointer at host " OMPEMU_PTR ": its "
               "pointee is unmapped; device slot " OMPEMU_PTR " = " OMPEMU_PTR,
               RT_DEV_ID(op), OMPEMU_P(s->hst_addr), OMPEMU_P(s->tgt_addr),
               OMPEMU_P(s->tgt_old));
      /* Synchronous: the holder's device memory may be freed next. */
      if (rt_dev_submit(op->d, (void *)s->tgt_addr, &s->tgt_old,
                        sizeof(void *), NULL))
        rc = -1;
    }
    /* Keep the shadow, detached: the host still gets its value back on a
     * copy from the device, and a copy to the device writes the detached
     * value. */
    s->tgt_val = s->tgt_old;
    s->hst_obj = s->tgt_obj = 0;
    pe->nrefs--;
  }
  return rc;
}

int rt_reattach_range(struct rt_op *op, struct map_entry *e, uintptr_t hst,
                      int64_t size) {
  uintptr_t end = hst + (uintptr_t)size;
  for (int i = map_shadow_lower(e, hst);
       i < e->nshadows && e->shadows[i].hst_addr < end;) {
    struct map_shadow *s = &e->shadows[i];
    if (s->hst_addr + sizeof(void *) > end) {
      i++;
      continue;
    }
    struct map_entry *pe = s->hst_obj ? map_find(op->d->maps, s->hst_obj) : NULL;
    if (s->hst_obj &&
        (!pe || pe->tgt_begin + (s->hst_obj - pe->hst_begin) != s->tgt_obj)) {
      DTRACE(2, "device %d: forget stale attached pointer at host " OMPEMU_PTR
               " (its pointee " OMPEMU_PTR " is no longer mapped there)",
               RT_DEV_ID(op), OMPEMU_P(s->hst_addr), OMPEMU_P(s->hst_obj));
      map_shadow_erase(op->d->maps, e, i);
      continue;
    }
    i++;
    DTRACE(1, "device %d: re-attach pointer at host " OMPEMU_PTR
             " after copy: device slot " OMPEMU_PTR " = " OMPEMU_PTR,
             RT_DEV_ID(op), OMPEMU_P(s->hst_addr), OMPEMU_P(s->tgt_addr),
             OMPEMU_P(s->tgt_val));
    /* ompemu's own repair (LLVM 14 leaves the host value there): shown in
     * the ompemu trace, not as a LIBOMPTARGET_INFO transfer. */
    if (put_ptr(op, s->tgt_addr, s->tgt_val, e->name, 0))
      return -1;
  }
  return 0;
}

int rt_restore_range(struct rt_op *op, struct map_entry *e, uintptr_t hst,
                     int64_t size, int restore, int erase) {
  uintptr_t end = hst + (uintptr_t)size;
  int synced = 0, first = map_shadow_lower(e, hst), i;
  for (i = first; i < e->nshadows && e->shadows[i].hst_addr < end; i++) {
    struct map_shadow *s = &e->shadows[i];
    if (restore) {
      /* The device->host copy of the enclosing range must have landed
       * before the host pointer gets its own value back. */
      if (!synced && rt_op_sync(op))
        return -1;
      synced = 1;
      DTRACE(1, "device %d: restore host pointer at " OMPEMU_PTR " = "
               OMPEMU_PTR, RT_DEV_ID(op), OMPEMU_P(s->hst_addr),
               OMPEMU_P(s->hst_val));
      memcpy((void *)s->hst_addr, &s->hst_val, sizeof(void *));
    }
    if (erase)
      DTRACE(2, "device %d: forget attached pointer at host " OMPEMU_PTR,
               RT_DEV_ID(op), OMPEMU_P(s->hst_addr));
  }
  /* The shadows in the range are one run (they are in address order). */
  if (erase && i > first)
    map_shadow_erase_run(op->d->maps, e, first, i - first);
  return 0;
}
