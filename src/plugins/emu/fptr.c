/* The declare-target-indirect table on the emu device
 * (docs/indirect-functions.md, "Sample implementation"): the table is copied
 * into device memory and its address and length are stored into the
 * __omp_offloading_fptr_map_p / __omp_offloading_fptr_map_size globals of
 * every loaded image that defines them, either by pointer-sized device
 * copies (OMPEMU_FPTR_SET=copy, the default, as cuModuleGetGlobal + cuMemcpy
 * would) or by a device-side routine run as a kernel (=kernel). */
#include "config.h"
#include "emu.h"
#include "loader.h"
#include "trace.h"

#include <ompemu/plugin.h>
#include <string.h>

/* A pointer-sized copy into device global VAR of image L.  Caller holds
 * D->lock. */
static int set_global(struct emu_device *d, struct emu_loaded *l,
                      const char *name, void *var, uint64_t value) {
  if (!loader_contains(l->img, var) ||
      !loader_contains(l->img, (char *)var + sizeof value - 1)) {
    ompemu_error("emu", "device %d: image %s: %s at " OMPEMU_PTR " is not "
                 "inside the image", d->id, loader_label(l->img), name,
                 OMPEMU_P(var));
    return -1;
  }
  if (exec_copy(d->exec, NULL, var, &value, sizeof value) != 0)
    return -1;
  ompemu_trace(1, "emu", "device %d: image %s: %s at " OMPEMU_PTR " set to "
               "0x%lx", d->id, loader_label(l->img), name, OMPEMU_P(var),
               (unsigned long)value);
  return 0;
}

int emu_fptr_apply(struct emu_device *d, struct emu_loaded *l) {
  if (!l->fptr_p_var) {
    ompemu_trace(2, "emu", "device %d: image %s defines no "
                 "__omp_offloading_fptr_map_p; no fptr table there", d->id,
                 loader_label(l->img));
    return 0;
  }
  if (emu_plugin()->fptr_kernel) {
    void *args[4] = {l->fptr_p_var, l->fptr_size_var, d->fptr_table,
                     (void *)(uintptr_t)d->fptr_count};
    struct emu_devctx ctx = {d->id, l->img, 1, 1, 0};
    if (exec_launch(d->exec, NULL, (void *)devicertl_fptr_assign, args, NULL,
                    4, &ctx, NULL) != 0)
      return -1; /* reported by exec */
    ompemu_trace(1, "emu", "device %d: image %s: device routine set "
                 "__omp_offloading_fptr_map_p at " OMPEMU_PTR " to " OMPEMU_PTR
                 " and __omp_offloading_fptr_map_size at " OMPEMU_PTR " to %lu",
                 d->id, loader_label(l->img), OMPEMU_P(l->fptr_p_var),
                 OMPEMU_P(d->fptr_table), OMPEMU_P(l->fptr_size_var),
                 (unsigned long)d->fptr_count);
    return 0;
  }
  /* Size first to 0, so a translation never sees a new pointer with an old
   * length or the reverse. */
  if (set_global(d, l, "__omp_offloading_fptr_map_size", l->fptr_size_var,
                 0) != 0 ||
      set_global(d, l, "__omp_offloading_fptr_map_p", l->fptr_p_var,
                 (uint64_t)(uintptr_t)d->fptr_table) != 0)
    return -1;
  if (d->fptr_count &&
      set_global(d, l, "__omp_offloading_fptr_map_size", l->fptr_size_var,
                 d->fptr_count) != 0)
    return -1;
  return 0;
}

EMU_EXPORT int32_t __tgt_rtl_set_function_ptr_map(
    int32_t id, uint64_t n, __omp_offloading_fptr_map_ty *table) {
  struct emu_device *d = emu_device_get(id, "set_function_ptr_map");
  if (!d)
    return OFFLOAD_FAIL;
  if (n && !table) {
    ompemu_error("emu", "device %d: set_function_ptr_map of %lu entries from "
                 "a NULL table", id, (unsigned long)n);
    return OFFLOAD_FAIL;
  }
  /* The device's binary search needs the order the table promises
   * (docs/indirect-functions.md). */
  for (uint64_t i = 1; i < n; i++)
    if (table[i].host_ptr <= table[i - 1].host_ptr) {
      ompemu_error("emu", "device %d: set_function_ptr_map: the table is not "
                   "sorted by host address: row %lu (" OMPEMU_PTR ") follows "
                   "row %lu (" OMPEMU_PTR ")", id, (unsigned long)i,
                   OMPEMU_P(table[i].host_ptr), (unsigned long)(i - 1),
                   OMPEMU_P(table[i - 1].host_ptr));
      return OFFLOAD_FAIL;
    }
  size_t bytes = sizeof *table * n;
  if (n && bytes / n != sizeof *table) {
    ompemu_error("emu", "device %d: set_function_ptr_map: a table of %lu "
                 "entries does not fit in memory", id, (unsigned long)n);
    return OFFLOAD_FAIL;
  }
  void *dev = NULL;
  if (n) {
    dev = arena_alloc(d->data, bytes);
    if (!dev) {
      ompemu_error("emu", "device %d: out of device memory for the fptr table "
                   "of %lu entries (%zu bytes), %zu of %zu in use", id,
                   (unsigned long)n, bytes, arena_in_use(d->data),
                   arena_capacity(d->data));
      return OFFLOAD_FAIL;
    }
    (void)arena_write_begin(d->data, dev, bytes); /* no poison owed now */
    if (exec_copy(d->exec, NULL, dev, table, bytes) != 0) {
      ompemu_error("emu", "device %d: cannot copy the fptr table of %lu "
                   "entries to the device", id, (unsigned long)n);
      arena_free(d->data, dev);
      return OFFLOAD_FAIL;
    }
  }
  ompemu_trace(1, "emu", "device %d: fptr table of %lu entries at " OMPEMU_PTR,
               id, (unsigned long)n, OMPEMU_P(dev));
  if (OMPEMU_TRACE_ON(3))
    for (uint64_t i = 0; i < n; i++)
      ompemu_trace(3, "emu", "device %d: fptr[%lu] host " OMPEMU_PTR
                   " -> device " OMPEMU_PTR, id, (unsigned long)i,
                   OMPEMU_P(table[i].host_ptr), OMPEMU_P(table[i].tgt_ptr));
  pthread_mutex_lock(&d->lock);
  void *old = d->fptr_table;
  d->fptr_table = dev;
  d->fptr_count = n;
  int rc = 0;
  for (struct emu_loaded *l = d->images; l; l = l->next)
    if (emu_fptr_apply(d, l) != 0)
      rc = -1;
  pthread_mutex_unlock(&d->lock);
  if (old) {
    if (arena_free(d->data, old) != 0) /* reported by the arena */
      rc = -1;
    ompemu_trace(2, "emu", "device %d: previous fptr table at " OMPEMU_PTR
                 " freed", id, OMPEMU_P(old));
  }
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}
