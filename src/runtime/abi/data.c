/* Front door: data constructs (docs/abi-clang14-runtime.md section 7.4): target data
 * begin / end (also enter and exit data) and target update, each in four
 * forms: mapper, nowait mapper, legacy (loc, names and mappers NULL) and
 * legacy nowait.  Nowait forms run in order before they return, as in
 * LLVM 14.  The _nowait_mapper forms are declared with 13 arguments but
 * clang 14 passes 9: arguments 10-13 are never read. */
#include "config.h"
#include "callsite.h"
#include "doors.h"
#include "observe.h"
#include <ompemu/omptarget.h>

#define RA __builtin_return_address(0)

static void data(enum rt_data_kind kind, ident_t *loc, int64_t device_id,
                 int32_t arg_num, void **args_base, void **args,
                 int64_t *arg_sizes, int64_t *arg_types,
                 map_var_info_t *arg_names, void **arg_mappers, int nowait,
                 const void *ra) {
  struct rt_args a = {loc,       arg_num,   args_base,   args, arg_sizes,
                      arg_types, arg_names, arg_mappers, 0,    0,
                      nowait};
  int observed = OBS_ON();
  if (observed)
    rt_construct_ra = ra;
  rt_target_data(kind, device_id, &a);
  if (observed)
    rt_construct_ra = NULL;
}

#define DATA_FORMS(what, KIND)                                               \
  RT_EXPORT void __tgt_target_data_##what##_mapper(OMPEMU_DATA_MAPPER_ARGS) { \
    data(KIND, loc, device_id, arg_num, args_base, args, arg_sizes,          \
         arg_types, arg_names, arg_mappers, 0, RA);                          \
  }                                                                          \
  RT_EXPORT void __tgt_target_data_##what##_nowait_mapper(                   \
      OMPEMU_DATA_MAPPER_ARGS, OMPEMU_DEP_ARGS) {                            \
    data(KIND, loc, device_id, arg_num, args_base, args, arg_sizes,          \
         arg_types, arg_names, arg_mappers, 1, RA);                          \
  }                                                                          \
  RT_EXPORT void __tgt_target_data_##what(OMPEMU_DATA_LEGACY_ARGS) {         \
    data(KIND, NULL, device_id, arg_num, args_base, args, arg_sizes,         \
         arg_types, NULL, NULL, 0, RA);                                      \
  }                                                                          \
  RT_EXPORT void __tgt_target_data_##what##_nowait(OMPEMU_DATA_LEGACY_ARGS,  \
                                                   OMPEMU_DEP_ARGS) {        \
    data(KIND, NULL, device_id, arg_num, args_base, args, arg_sizes,         \
         arg_types, NULL, NULL, 1, RA);                                      \
  }
DATA_FORMS(begin, RT_DATA_BEGIN)
DATA_FORMS(end, RT_DATA_END)
DATA_FORMS(update, RT_DATA_UPDATE)
