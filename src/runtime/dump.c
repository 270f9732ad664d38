/* LIBOMPTARGET_INFO's DUMP_TABLE (bit 4): a device's mapping table after a
 * construct, in LLVM 14's layout. */
#include "config.h"
#include "data.h"
#include "mapping.h"
#include "trace.h"

struct dump_ctx {
  int32_t dev;
};

static int dump_row(struct map_entry *e, void *arg) {
  struct dump_ctx *c = arg;
  char dyn[24], hold[24], nm[512], where[600];
  const char *name = e->name;
  rt_info_msg(c->dev, OMPEMU_PTR " " OMPEMU_PTR " %-8lu %-11s %-12s %s at %s",
              OMPEMU_P(e->hst_begin), OMPEMU_P(e->tgt_begin),
              (unsigned long)(e->hst_end - e->hst_begin),
              map_ref_str(e->dyn_ref, dyn), map_ref_str(e->hold_ref, hold),
              rt_name_str(name, nm, sizeof nm),
              rt_name_loc_str(name, where, sizeof where));
  return 0;
}

void rt_dump_table(struct rt_device *d, ident_t *loc) {
  if (!d)
    return;
  biaslock_lock(&d->map_lock);
  struct map_table *t = d->maps;
  if (t && t->count) {
    char where[600];
    rt_info_msg(d->id, "OpenMP Host-Device pointer mappings after block at %s:",
                rt_loc_str(loc, where, sizeof where));
    rt_info_msg(d->id, "Host Ptr           Target Ptr         Size (B) "
                       "DynRefCount HoldRefCount Declaration");
    struct dump_ctx c = {d->id};
    map_foreach(t, dump_row, &c);
  }
  biaslock_unlock(&d->map_lock);
}

void rt_dump_tables(ident_t *loc) {
  if (!rt_info(RT_INFO_DUMP_TABLE))
    return;
  int32_t n = rt_num_devices();
  for (int32_t i = 0; i < n; i++)
    rt_dump_table(rt_state.devices[i], loc);
}
