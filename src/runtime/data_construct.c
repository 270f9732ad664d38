/* A data construct (target data begin / end, enter and exit data, target
 * update) on one device: the device check, the KERNEL_ARGS listing, the
 * routine, the final synchronize, the DUMP_TABLE listing and the offload
 * policy on the outcome, as LLVM 14's __tgt_target_data_*_mapper do. */
#include "config.h"
#include "data.h"
#include "observe.h"
#include "trace.h"

static const struct {
  const char *what; /* LLVM 14's KERNEL_ARGS heading */
  rt_data_routine routine;
  enum obs_region_kind region;
} kinds[] = {
    [RT_DATA_BEGIN] = {"Entering OpenMP data region", rt_data_begin,
                       OBS_R_ENTER_DATA},
    [RT_DATA_END] = {"Exiting OpenMP data region", rt_data_end,
                     OBS_R_EXIT_DATA},
    [RT_DATA_UPDATE] = {"Updating OpenMP data", rt_data_update, OBS_R_UPDATE},
};

int rt_target_data(enum rt_data_kind kind, int64_t device_id,
                   const struct rt_args *a) {
  struct rt_args safe;
  if (RT_READS_NAMES()) {
    safe = *a;
    rt_args_readable(&safe);
    a = &safe;
  }
  struct rt_device *d = NULL;
  int c = rt_check_device(&device_id, &d);
  if (c != 0) {
    if (c < 0) {
      rt_handle_outcome(OFFLOAD_FAIL, a->loc);
      return OFFLOAD_FAIL;
    }
    return OFFLOAD_SUCCESS; /* not offloaded: nothing to map */
  }
  if (rt_info(RT_INFO_KERNEL_ARGS)) {
    char where[600];
    rt_print_args(d->id, rt_loc_str(a->loc, where, sizeof where),
                  kinds[kind].what, a->n, a->sizes, a->types, a->names);
  }
  if (OMPEMU_TRACE_ON(1)) {
    char where[600];
    RT_TRACE(1, "device %d: %s at %s, %d arguments", d->id, kinds[kind].what,
             rt_loc_str(a->loc, where, sizeof where), (int)a->n);
  }
  struct rt_op op;
  rt_op_init(&op, d);
  struct obs_event region;
  region.kernel = NULL;
  int rc = OBS_REGION_BEGIN(&region, kinds[kind].region, d, a->loc,
                            a->nowait)
               ? -1
               : kinds[kind].routine(&op, a);
  if (rc == 0)
    rc = rt_op_sync(&op);
  rt_op_fini(&op);
  OBS_REGION_END(&region, rc);
  if (rc == 0)
    rt_dump_tables(a->loc);
  rc = rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
  rt_handle_outcome(rc, a->loc);
  return rc;
}
