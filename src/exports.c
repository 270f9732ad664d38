/* The exported forms that are not the data path: the legacy (non-mapper)
 * entry points, every _nowait form (run synchronously, as LLVM 14 does; the
 * data _nowait_mapper forms read only the nine arguments clang 14 passes),
 * the device count for libomp, __tgt_init_all_rtls, the info flag, device
 * info printing, and a minimal interop object with its queries. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"
#include <ompemu/omptarget.h>

#include <stdlib.h>

/* Legacy forms: the mapper forms with loc, names and mappers NULL. */
RT_EXPORT int __tgt_target(int64_t device_id, void *host_ptr, int32_t arg_num,
                           void **args_base, void **args, int64_t *arg_sizes,
                           int64_t *arg_types) {
  return __tgt_target_mapper(NULL, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, NULL, NULL);
}

RT_EXPORT int __tgt_target_teams(int64_t device_id, void *host_ptr,
                                 int32_t arg_num, void **args_base, void **args,
                                 int64_t *arg_sizes, int64_t *arg_types,
                                 int32_t num_teams, int32_t thread_limit) {
  return __tgt_target_teams_mapper(NULL, device_id, host_ptr, arg_num,
                                   args_base, args, arg_sizes, arg_types, NULL,
                                   NULL, num_teams, thread_limit);
}

/* Dependencies are met by libomp before the task that calls these runs;
 * the work itself is synchronous on the calling (hidden helper) thread. */
RT_EXPORT int __tgt_target_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    map_var_info_t *arg_names, void **arg_mappers, int32_t dep_num,
    void *dep_list, int32_t noalias_dep_num, void *noalias_dep_list) {
  return __tgt_target_mapper(loc, device_id, host_ptr, arg_num, args_base, args,
                             arg_sizes, arg_types, arg_names, arg_mappers);
}

RT_EXPORT int __tgt_target_teams_nowait_mapper(
    ident_t *loc, int64_t device_id, void *host_ptr, int32_t arg_num,
    void **args_base, void **args, int64_t *arg_sizes, int64_t *arg_types,
    map_var_info_t *arg_names, void **arg_mappers, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  return __tgt_target_teams_mapper(loc, device_id, host_ptr, arg_num, args_base,
                                   args, arg_sizes, arg_types, arg_names,
                                   arg_mappers, num_teams, thread_limit);
}

RT_EXPORT int __tgt_target_nowait(int64_t device_id, void *host_ptr,
                                  int32_t arg_num, void **args_base,
                                  void **args, int64_t *arg_sizes,
                                  int64_t *arg_types, int32_t dep_num,
                                  void *dep_list, int32_t noalias_dep_num,
                                  void *noalias_dep_list) {
  return __tgt_target_mapper(NULL, device_id, host_ptr, arg_num, args_base,
                             args, arg_sizes, arg_types, NULL, NULL);
}

RT_EXPORT int __tgt_target_teams_nowait(
    int64_t device_id, void *host_ptr, int32_t arg_num, void **args_base,
    void **args, int64_t *arg_sizes, int64_t *arg_types, int32_t num_teams,
    int32_t thread_limit, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  return __tgt_target_teams_mapper(NULL, device_id, host_ptr, arg_num,
                                   args_base, args, arg_sizes, arg_types, NULL,
                                   NULL, num_teams, thread_limit);
}

/* Data forms.  The _nowait_mapper ones are declared with 13 arguments but
 * clang 14 passes 9: arguments 10-13 are never read. */
#define DATA_FORMS(what)                                                     \
  RT_EXPORT void __tgt_target_data_##what(OMPEMU_DATA_LEGACY_ARGS) {         \
    __tgt_target_data_##what##_mapper(NULL, device_id, arg_num, args_base,   \
                                      args, arg_sizes, arg_types, NULL,      \
                                      NULL);                                 \
  }                                                                          \
  RT_EXPORT void __tgt_target_data_##what##_nowait(OMPEMU_DATA_LEGACY_ARGS,  \
                                                   OMPEMU_DEP_ARGS) {        \
    __tgt_target_data_##what##_mapper(NULL, device_id, arg_num, args_base,   \
                                      args, arg_sizes, arg_types, NULL,      \
                                      NULL);                                 \
  }                                                                          \
  RT_EXPORT void __tgt_target_data_##what##_nowait_mapper(                   \
      OMPEMU_DATA_MAPPER_ARGS, OMPEMU_DEP_ARGS) {                            \
    __tgt_target_data_##what##_mapper(loc, device_id, arg_num, args_base,    \
                                      args, arg_sizes, arg_types, arg_names, \
                                      arg_mappers);                          \
  }
DATA_FORMS(begin)
DATA_FORMS(end)
DATA_FORMS(update)

RT_EXPORT void __kmpc_push_target_tripcount(int64_t device_id,
                                            uint64_t loop_tripcount) {
  __kmpc_push_target_tripcount_mapper(NULL, device_id, loop_tripcount);
}

/* LLVM 14: the devices of the plugins in use (that claimed an image, or
 * after __tgt_init_all_rtls); the host is device number N. */
RT_EXPORT int omp_get_num_devices(void) {
  return __atomic_load_n(&rt_state.num_devices, __ATOMIC_ACQUIRE);
}

RT_EXPORT int omp_get_initial_device(void) { return omp_get_num_devices(); }

RT_EXPORT int __tgt_get_num_devices(void) { return omp_get_num_devices(); }

RT_EXPORT void __tgt_init_all_rtls(void) {
  pthread_mutex_lock(&rt_state.lock);
  if (!rt_state.plugins_loaded && rt_offload_policy() != 0) {
    rt_load_plugins();
    rt_arm_exit_handler();
  }
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    rt_plugin_use(p);
  pthread_mutex_unlock(&rt_state.lock);
}

RT_EXPORT void __tgt_set_info_flag(uint32_t flags) {
  rt_state.info_flags = flags;
  pthread_mutex_lock(&rt_state.lock);
  for (struct rt_plugin *p = rt_state.plugins; p; p = p->next)
    if (p->set_info_flag)
      p->set_info_flag(flags);
  pthread_mutex_unlock(&rt_state.lock);
}

/* 1 if the plugin printed something, 0 otherwise. */
RT_EXPORT int __tgt_print_device_info(int64_t device_id) {
  struct rt_device *d = rt_device_get(device_id);
  if (!d || !d->plugin->print_device_info)
    return 0;
  d->plugin->print_device_info(d->local_id);
  return 1;
}
