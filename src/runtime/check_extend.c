/* Check mode: a map entry the runtime refused because it would extend a
 * mapping that is present ("explicit extension not allowed": a
 * `target map(a[0:20])` inside `target data map(a[0:10])`).  The
 * runtime's own message gives host addresses and sizes; the finding names
 * both sections, where each was mapped, and by how much the new one
 * overruns the old.  Caller holds check_lock. */
#include "config.h"
#include "check.h"

#include <stdio.h>

void extend_refused(struct cregion *r, const struct obs_event *e) {
  struct cblock *b = e->tgt ? cb_find(e->device, e->tgt) : NULL;
  if (!b || !b->hst || !e->hst)
    return;
  uintptr_t h = e->hst, n = (uintptr_t)e->size;
  uintptr_t before = b->hst > h ? b->hst - h : 0;
  uintptr_t end = h + n, bend = b->hst + b->size;
  uintptr_t after = end > bend ? end - bend : 0;
  char how[128], v[400], w[400], mt[64];
  if (before && after)
    snprintf(how, sizeof how, "starts %lu bytes before and ends %lu bytes "
             "past the end of", (unsigned long)before, (unsigned long)after);
  else if (before)
    snprintf(how, sizeof how, "starts %lu bytes before",
             (unsigned long)before);
  else
    snprintf(how, sizeof how, "runs %lu bytes past the end of",
             (unsigned long)after);
  /* Sizes and offsets, no addresses: the same words every run. */
  check_finding("mapping extended: map(%s) of %s at the %s at %s (%lu "
                "bytes) %s %s, mapped at %s (%lu bytes), which is present "
                "and cannot grow: the runtime refuses the map and the "
                "construct fails; map the whole section where the data is "
                "first mapped, or only the part that is mapped",
                check_maptype_words(e->maptype, 0, mt, sizeof mt),
                check_var_words(e->var, h, n, v, sizeof v),
                r ? check_region_words(r->kind, r->nowait) : "construct",
                r ? r->where : "unknown location", (unsigned long)n, how,
                check_var_words(b->var, b->hst, b->size, w, sizeof w),
                b->mapped_at ? b->mapped_at : "unknown location",
                (unsigned long)b->size);
}
