/* clang 22's ATTACH map entries (docs/abi-clang22.md section 5.2): BASE is
 * the host address of a pointer, BEGIN the start of its pointee section.
 * Such an entry maps nothing; once every other entry of the construct is
 * mapped, the device copy of the pointer is made to point at the device
 * copy of the pointee, as OpenMP 6.0 and LLVM 22 say: when both are
 * present, and the pointer or the pointee was allocated by this construct
 * or the entry says ALWAYS (attach(always), or every entry when
 * LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS is true).  The attached pointer
 * gets a shadow (attach.c) like a PTR_AND_OBJ one: later copies of its
 * entry keep the device value, copies back put the host value back, and
 * the device slot is reset when the pointee is unmapped. */
#include "config.h"
#include "data.h"
#include "envvar.h"
#include "mapping.h"
#include "trace.h"

#include <string.h>

static uint64_t last_stamp;

uint64_t rt_attach_stamp(struct rt_op *op) {
  if (!op->stamp)
    op->stamp = __atomic_add_fetch(&last_stamp, 1, __ATOMIC_RELAXED);
  return op->stamp;
}

/* LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS, read again when the
 * environment string changes (a bad value is reported once per string). */
static int auto_as_always(void) {
  static const char *seen;
  static int value;
  const char *s = getenv("LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS");
  if (s != __atomic_load_n(&seen, __ATOMIC_ACQUIRE)) {
    int v = 0;
    ompemu_env_bool("LIBOMPTARGET_TREAT_ATTACH_AUTO_AS_ALWAYS", 0, &v);
    __atomic_store_n(&value, v, __ATOMIC_RELAXED);
    __atomic_store_n(&seen, s, __ATOMIC_RELEASE);
  }
  return __atomic_load_n(&value, __ATOMIC_RELAXED);
}

/* ATTACH entry I of A (caller holds the map lock). */
static int attach_one(struct rt_op *op, struct map_table *t,
                      const struct rt_args *a, int32_t i) {
  int32_t dev = RT_DEV_ID(op);
  uintptr_t ptr = (uintptr_t)a->base[i];
  uintptr_t ptee = (uintptr_t)a->begin[i];
  struct map_lookup lp, lq;
  /* Both looked up again after any wait (the other may have gone). */
  for (;;) {
    unsigned long mark = map_wait_mark(t);
    map_lookup(t, ptr, a->sizes[i], &lp);
    map_lookup(t, ptee, 0, &lq);
    if (!(lp.entry && map_busy(lp.entry)) && !(lq.entry && map_busy(lq.entry)))
      break;
    map_wait(t, &op->d->map_lock, mark);
  }
  if (!lp.contained || !lq.contained) {
    DTRACE(1, "device %d: attach entry %d: the %s at host " OMPEMU_PTR
             " is not mapped: not attached", dev, (int)i,
             !lp.contained ? "pointer" : "pointee",
             OMPEMU_P(!lp.contained ? ptr : ptee));
    return 0;
  }
  struct map_entry *pe = lp.entry, *qe = lq.entry;
  uint64_t stamp = op->stamp;
  int always = (a->types[i] & OMP_TGT_MAPTYPE_ALWAYS) != 0;
  if (!always && !(stamp && (pe->born == stamp || qe->born == stamp)) &&
      !auto_as_always()) {
    DTRACE(2, "device %d: attach entry %d: pointer at host " OMPEMU_PTR
             " and its pointee were both mapped before this construct: "
             "not attached (no attach(always))", dev, (int)i, OMPEMU_P(ptr));
    return 0;
  }
  uintptr_t tgt_addr = pe->tgt_begin + (ptr - pe->hst_begin);
  uintptr_t tgt_obj = qe->tgt_begin + (ptee - qe->hst_begin);
  /* The pointer may point before its section (p[2:5]): keep the
   * distance. */
  uintptr_t hst_val;
  memcpy(&hst_val, (void *)ptr, sizeof hst_val);
  uintptr_t tgt_val = tgt_obj - (ptee - hst_val);
  struct map_shadow *s = map_shadow_find(pe, ptr);
  if (s && s->tgt_addr == tgt_addr && s->tgt_val == tgt_val &&
      s->tgt_obj == tgt_obj && !always) {
    DTRACE(2, "device %d: pointer at host " OMPEMU_PTR " already attached "
             "to " OMPEMU_PTR, dev, OMPEMU_P(ptr), OMPEMU_P(tgt_val));
    return 0;
  }
  return rt_attach(op, pe, ptr, tgt_addr, tgt_val, ptee, tgt_obj);
}

int rt_data_attach(struct rt_op *op, const struct rt_args *a) {
  int rc = 0;
  for (int32_t i = 0; i < a->n && rc == 0; i++) {
    if (!(a->types[i] & OMP_TGT_MAPTYPE_ATTACH))
      continue;
    biaslock_lock(&op->d->map_lock);
    struct map_table *t = op->d->maps;
    rc = t ? attach_one(op, t, a, i) : 0;
    biaslock_unlock(&op->d->map_lock);
  }
  if (rc)
    rt_err("Failed to process ATTACH entries.");
  return rc;
}
