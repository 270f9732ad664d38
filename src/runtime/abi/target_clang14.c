/* Front door: the kernel launches clang 14 emits (docs/abi-clang14-runtime.md
 * section 7.3): __tgt_target*_mapper with and without teams, their nowait
 * forms (run in order before they return, as LLVM 14 does: libomp has met
 * the dependencies before the task that calls them runs), the legacy forms
 * without mappers, and the trip count pushed before a teams launch. */
#include "config.h"
#include "callsite.h"
#include "doors.h"
#include "observe.h"
#include <ompemu/omptarget.h>
#include <stddef.h>

#define RA __builtin_return_address(0)
#define ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/* One launch as clang 14 describes it.  Every field is set one by one: a
 * designated initializer made GCC clear the whole struct first with a
 * `rep stos`, whose start-up cost was a few percent of an empty launch. */
static int launch(ident_t *loc, int64_t device_id, void *host_ptr,
                  int32_t arg_num, void **args_base, void **args,
                  int64_t *arg_sizes, int64_t *arg_types,
                  map_var_info_t *arg_names, void **arg_mappers, int teams,
                  int32_t num_teams, int32_t thread_limit, int nowait,
                  const void *ra) {
  struct rt_launch l;
  l.device_id = device_id;
  l.host_ptr = host_ptr;
  l.args.loc = loc;
  l.args.n = arg_num;
  l.args.base = args_base;
  l.args.begin = args;
  l.args.sizes = arg_sizes;
  l.args.types = arg_types;
  l.args.names = arg_names;
  l.args.mappers = arg_mappers;
  l.args.from_mapper = 0;
  l.args.mapper_ref = 0;
  l.args.nowait = 0; /* the launch's own: l.nowait */
  l.teams = teams;
  l.num_teams[0] = num_teams;
  l.num_teams[1] = l.num_teams[2] = 0;
  l.thread_limit[0] = thread_limit;
  l.thread_limit[1] = l.thread_limit[2] = 0;
  l.tripcount = 0;
  l.dyn_mem = 0;
  l.nowait = nowait;
  l.prepend_dyn_ptr = 0;
  /* A field appended to the struct must be set above too. */
  _Static_assert(sizeof l == ROUND_UP(offsetof(struct rt_launch,
                                               prepend_dyn_ptr) +
                                          sizeof l.prepend_dyn_ptr,
                                      _Alignof(struct rt_launch)),
                 "struct rt_launch has a field launch() does not set");
  if (!OBS_ON())
    return rt_target(&l);
  rt_construct_ra = ra;
  int rc = rt_target(&l);
  rt_construct_ra = NULL;
  return rc;
}

RT_EXPORT int __tgt_target_mapper(ident_t *loc, int64_t device_id,
                                  void *host_ptr, int32_t arg_num,
                                  void **args_base, void **args,
                                  int64_t *arg_sizes, int64_t *arg_types,
                                  map_var_info_t *arg_names,
                                  void **arg_mappers) {
  return launch(loc, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, arg_names, arg_mappers, 0, 0, 0, 0, RA);
}

RT_EXPORT int __tgt_target_teams_mapper(ident_t *loc, int64_t device_id,
                                        void *host_ptr, int32_t arg_num,
                                        void **args_base, void **args,
                                        int64_t *arg_sizes, int64_t *arg_types,
                                        map_var_info_t *arg_names,
                                        void **arg_mappers, int32_t num_teams,
                                        int32_t thread_limit) {
  return launch(loc, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, arg_names, arg_mappers, 1, num_teams, thread_limit,
                0, RA);
}

RT_EXPORT int __tgt_target_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    map_var_info_t *arg_names, void **arg_mappers, int32_t dep_num,
    void *dep_list, int32_t noalias_dep_num, void *noalias_dep_list) {
  return launch(loc, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, arg_names, arg_mappers, 0, 0, 0, 1, RA);
}

RT_EXPORT int __tgt_target_teams_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    map_var_info_t *arg_names, void **arg_mappers, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  return launch(loc, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, arg_names, arg_mappers, 1, num_teams, thread_limit,
                1, RA);
}

/* Legacy forms: the mapper forms with loc, names and mappers NULL. */
RT_EXPORT int __tgt_target(int64_t device_id, void *host_ptr, int32_t arg_num,
                           void **args_base, void **args, int64_t *arg_sizes,
                           int64_t *arg_types) {
  return launch(NULL, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, NULL, NULL, 0, 0, 0, 0, RA);
}

RT_EXPORT int __tgt_target_nowait(int64_t device_id, void *host_ptr,
                                  int32_t arg_num, void **args_base,
                                  void **args, int64_t *arg_sizes,
                                  int64_t *arg_types, int32_t dep_num,
                                  void *dep_list, int32_t noalias_dep_num,
                                  void *noalias_dep_list) {
  return launch(NULL, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, NULL, NULL, 0, 0, 0, 1, RA);
}

RT_EXPORT int __tgt_target_teams(int64_t device_id, void *host_ptr,
                                 int32_t arg_num, void **args_base, void **args,
                                 int64_t *arg_sizes, int64_t *arg_types,
                                 int32_t num_teams, int32_t thread_limit) {
  return launch(NULL, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, NULL, NULL, 1, num_teams, thread_limit, 0, RA);
}

RT_EXPORT int __tgt_target_teams_nowait(
    int64_t device_id, void *host_ptr, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  return launch(NULL, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, NULL, NULL, 1, num_teams, thread_limit, 1, RA);
}

RT_EXPORT void __kmpc_push_target_tripcount_mapper(ident_t *loc,
                                                   int64_t device_id,
                                                   uint64_t loop_tripcount) {
  rt_push_tripcount(loc, device_id, loop_tripcount);
}

RT_EXPORT void __kmpc_push_target_tripcount(int64_t device_id,
                                            uint64_t loop_tripcount) {
  rt_push_tripcount(NULL, device_id, loop_tripcount);
}
