/* Lookups that leave reference counts alone: LLVM 14's getTgtPtrBegin
 * (launch arguments, omp_target_is_present) and the MAPPING_EXISTS line it
 * and `target update` print. */
#include "config.h"
#include "data.h"
#include "mapping.h"
#include "trace.h"

void rt_info_found(int32_t dev, const struct map_entry *e, uintptr_t hp,
                   uintptr_t tgt, int64_t size) {
  char dyn[24], hl[24];
  if (rt_info(RT_INFO_MAPPING_EXISTS))
    rt_info_msg(dev,
                "Mapping exists with HstPtrBegin=" OMPEMU_PTR
                ", TgtPtrBegin=" OMPEMU_PTR ", Size=%ld, DynRefCount=%s"
                " (update suppressed), HoldRefCount=%s",
                OMPEMU_P(hp), OMPEMU_P(tgt), (long)size,
                map_ref_str(e->dyn_ref, dyn), map_ref_str(e->hold_ref, hl));
}

void *rt_lookup_tgt(struct rt_device *d, void *hp, int64_t size,
                    int must_contain, int *is_host) {
  struct map_lookup lr;
  void *rc = NULL;
  *is_host = 0;
  biaslock_lock(&d->map_lock);
  map_lookup_ready(d->maps, &d->map_lock, (uintptr_t)hp, size, &lr);
  if (lr.contained ||
      (!must_contain && (lr.extends_before || lr.extends_after))) {
    struct map_entry *e = lr.entry;
    rc = (void *)(e->tgt_begin + ((uintptr_t)hp - e->hst_begin));
    rt_info_found(d->id, e, (uintptr_t)hp, (uintptr_t)rc, size);
  } else if (rt_usm()) {
    *is_host = 1;
    rc = hp;
  }
  biaslock_unlock(&d->map_lock);
  return rc;
}
