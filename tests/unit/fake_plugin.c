/* A fake device plugin for the runtime core's unit tests.  An image is a
 * struct fake_image: the magic "FAKEIMG" followed by the device entries the
 * plugin returns from load_binary.  Kernels are never run: run_region only
 * records the address in fake_log, so tests can check ctor/dtor order; the
 * entry FAKE_FAILING_ENTRY fails, reported through this plugin's own copy
 * of src/common (as real plugins report).
 * Built three ways: complete; -DFAKE_MISSING (no run_target_team_region);
 * -DFAKE_ZERO (reports 0 devices). */
#include <ompemu/plugin.h>
#include <stdlib.h>
#include <string.h>

#include "fake_plugin.h"
#include "trace.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT struct fake_log fake_log;

EXPORT int32_t __tgt_rtl_is_valid_binary(__tgt_device_image *img) {
  return img && img->ImageStart &&
         !memcmp(((struct fake_image *)img->ImageStart)->magic, FAKE_MAGIC, 8);
}

EXPORT int32_t __tgt_rtl_number_of_devices(void) {
#ifdef FAKE_ZERO
  return 0;
#else
  return FAKE_NUM_DEVICES;
#endif
}

EXPORT int32_t __tgt_rtl_init_device(int32_t id) {
  fake_log.inits++;
  return id >= 0 && id < FAKE_NUM_DEVICES ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

EXPORT __tgt_target_table *__tgt_rtl_load_binary(int32_t id,
                                                 __tgt_device_image *img) {
  struct fake_image *fi = img->ImageStart;
  __tgt_target_table *t = &fi->table[id];
  t->EntriesBegin = fi->entries;
  t->EntriesEnd = fi->entries + fi->n;
  fake_log.loads++;
  return t;
}

EXPORT void *__tgt_rtl_data_alloc(int32_t id, int64_t size, void *h, int32_t k) {
  return malloc((size_t)size);
}
EXPORT int32_t __tgt_rtl_data_submit(int32_t id, void *t, void *h, int64_t n) {
  memcpy(t, h, (size_t)n);
  return 0;
}
EXPORT int32_t __tgt_rtl_data_retrieve(int32_t id, void *h, void *t, int64_t n) {
  memcpy(h, t, (size_t)n);
  return 0;
}
EXPORT int32_t __tgt_rtl_data_delete(int32_t id, void *t) {
  free(t);
  return 0;
}

EXPORT int32_t __tgt_rtl_run_target_region(int32_t id, void *entry, void **args,
                                           ptrdiff_t *offs, int32_t n) {
  if (fake_log.nruns < FAKE_LOG_MAX) {
    fake_log.run_dev[fake_log.nruns] = id;
    fake_log.runs[fake_log.nruns++] = entry;
  }
  if (entry == (void *)FAKE_FAILING_ENTRY) {
    ompemu_error("fake", "device %d: kernel " OMPEMU_PTR " failed", (int)id,
                 OMPEMU_P(entry));
    return OFFLOAD_FAIL;
  }
  return OFFLOAD_SUCCESS;
}

#ifndef FAKE_MISSING
EXPORT int32_t __tgt_rtl_run_target_team_region(int32_t id, void *entry,
                                                void **args, ptrdiff_t *offs,
                                                int32_t n, int32_t teams,
                                                int32_t limit, uint64_t trip) {
  return __tgt_rtl_run_target_region(id, entry, args, offs, n);
}
#endif

EXPORT int32_t __tgt_rtl_set_function_ptr_map(int32_t id, uint64_t n,
                                              __omp_offloading_fptr_map_ty *t) {
  fake_log.fptr_calls++;
  fake_log.fptr_dev = id;
  fake_log.nfptr = n < FAKE_LOG_MAX ? n : FAKE_LOG_MAX;
  memcpy(fake_log.fptr, t, fake_log.nfptr * sizeof *t);
  return OFFLOAD_SUCCESS;
}

EXPORT int32_t __tgt_rtl_unregister_lib(__tgt_bin_desc *desc) {
  fake_log.unregisters++;
  return OFFLOAD_SUCCESS;
}
