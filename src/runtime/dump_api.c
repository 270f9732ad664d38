/* ompx_dump_mapping_tables (LLVM 19 and 22): every device's mapping
 * table, on stdout whatever LIBOMPTARGET_INFO says, in the layout LLVM
 * prints ("omptarget device N info: " lines). */
#include "config.h"
#include "data.h"
#include "mapping.h"

#include <stdio.h>

struct row_ctx {
  int32_t dev;
};

static int print_row(struct map_entry *e, void *arg) {
  struct row_ctx *c = arg;
  char dyn[24], hold[24], nm[512], where[600];
  printf("omptarget device %d info: " OMPEMU_PTR " " OMPEMU_PTR
         " %-8lu %-11s %-12s %s at %s\n", (int)c->dev,
         OMPEMU_P(e->hst_begin), OMPEMU_P(e->tgt_begin),
         (unsigned long)(e->hst_end - e->hst_begin),
         map_ref_str(e->dyn_ref, dyn), map_ref_str(e->hold_ref, hold),
         rt_name_str(e->name, nm, sizeof nm),
         rt_name_loc_str(e->name, where, sizeof where));
  return 0;
}

void rt_dump_mapping_tables(void) {
  int32_t n = rt_num_devices();
  for (int32_t i = 0; i < n; i++) {
    struct rt_device *d = rt_device_get(i);
    if (!d)
      continue;
    biaslock_lock(&d->map_lock);
    struct map_table *t = d->maps;
    if (!t || !t->count) {
      printf("omptarget device %d info: OpenMP Host-Device pointer mappings "
             "table empty\n", (int)i);
    } else {
      printf("omptarget device %d info: OpenMP Host-Device pointer mappings "
             "after block at libomptarget:0:0:\n", (int)i);
      printf("omptarget device %d info: %-18s %-18s %s %s %s %s\n", (int)i,
             "Host Ptr", "Target Ptr", "Size (B)", "DynRefCount",
             "HoldRefCount", "Declaration");
      struct row_ctx c = {i};
      map_foreach(t, print_row, &c);
    }
    biaslock_unlock(&d->map_lock);
  }
  fflush(stdout);
}
