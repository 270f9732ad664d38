/* Front door: the kernel launches clang 14 emits (docs/abi-clang14.md
 * section 7.3): __tgt_target*_mapper with and without teams, their nowait
 * forms (run in order before they return, as LLVM 14 does: libomp has met
 * the dependencies before the task that calls them runs), the legacy forms
 * without mappers, and the trip count pushed before a teams launch. */
#include "config.h"
#include "doors.h"
#include <ompemu/omptarget.h>

/* One launch as clang 14 describes it. */
static int launch(ident_t *loc, int64_t device_id, void *host_ptr,
                  int32_t arg_num, void **args_base, void **args,
                  int64_t *arg_sizes, int64_t *arg_types,
                  map_var_info_t *arg_names, void **arg_mappers, int teams,
                  int32_t num_teams, int32_t thread_limit, int nowait) {
  struct rt_launch l = {
      .device_id = device_id,
      .host_ptr = host_ptr,
      .args = {loc, arg_num, args_base, args, arg_sizes, arg_types, arg_names,
               arg_mappers, 0},
      .teams = teams,
      .num_teams = {num_teams, 0, 0},
      .thread_limit = {thread_limit, 0, 0},
      .nowait = nowait,
  };
  return rt_target(&l);
}

RT_EXPORT int __tgt_target_mapper(ident_t *loc, int64_t device_id,
                                  void *host_ptr, int32_t arg_num,
                                  void **args_base, void **args,
                                  int64_t *arg_sizes, int64_t *arg_types,
                                  map_var_info_t *arg_names,
                                  void **arg_mappers) {
  return launch(loc, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, arg_names, arg_mappers, 0, 0, 0, 0);
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
                0);
}

RT_EXPORT int __tgt_target_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    map_var_info_t *arg_names, void **arg_mappers, int32_t dep_num,
    void *dep_list, int32_t noalias_dep_num, void *noalias_dep_list) {
  return launch(loc, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, arg_names, arg_mappers, 0, 0, 0, 1);
}

RT_EXPORT int __tgt_target_teams_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    map_var_info_t *arg_names, void **arg_mappers, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  return launch(loc, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, arg_names, arg_mappers, 1, num_teams, thread_limit,
                1);
}

/* Legacy forms: the mapper forms with loc, names and mappers NULL. */
RT_EXPORT int __tgt_target(int64_t device_id, void *host_ptr, int32_t arg_num,
                           void **args_base, void **args, int64_t *arg_sizes,
                           int64_t *arg_types) {
  return launch(NULL, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, NULL, NULL, 0, 0, 0, 0);
}

RT_EXPORT int __tgt_target_nowait(int64_t device_id, void *host_ptr,
                                  int32_t arg_num, void **args_base,
                                  void **args, int64_t *arg_sizes,
                                  int64_t *arg_types, int32_t dep_num,
                                  void *dep_list, int32_t noalias_dep_num,
                                  void *noalias_dep_list) {
  return launch(NULL, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, NULL, NULL, 0, 0, 0, 1);
}

RT_EXPORT int __tgt_target_teams(int64_t device_id, void *host_ptr,
                                 int32_t arg_num, void **args_base, void **args,
                                 int64_t *arg_sizes, int64_t *arg_types,
                                 int32_t num_teams, int32_t thread_limit) {
  return launch(NULL, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, NULL, NULL, 1, num_teams, thread_limit, 0);
}

RT_EXPORT int __tgt_target_teams_nowait(
    int64_t device_id, void *host_ptr, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  return launch(NULL, device_id, host_ptr, arg_num, args_base, args, arg_sizes,
                arg_types, NULL, NULL, 1, num_teams, thread_limit, 1);
}

RT_EXPORT void __kmpc_push_target_tripcount_mapper(ident_t *loc,
                                                   int64_t device_id,
                                                   uint64_t loop_tripcount) {
  rt_push_tripcount(device_id, loop_tripcount);
}

RT_EXPORT void __kmpc_push_target_tripcount(int64_t device_id,
                                            uint64_t loop_tripcount) {
  rt_push_tripcount(device_id, loop_tripcount);
}
