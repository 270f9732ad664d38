/* Front door: the kernel launches clang 16, 19, 22 and flang 22 emit
 * (docs/abi-clang16-19.md 1.2 and 2, docs/abi-clang22.md 4):
 * __tgt_target_kernel with its KernelArgs block (versions 1 to 3), the
 * _nowait form with trailing dependences (never emitted by those
 * compilers; libomp has met the dependences before the task that calls
 * it runs), and __tgt_target_nowait_query, which libomp polls for an
 * asynchronous handle.  The block is decoded into the launch descriptor
 * every door fills (kernel_args.c), and the launch is the one the clang-14
 * door uses (rt_target): a nowait launch is completed, in order, before
 * the call returns, so there never is a handle to poll. */
#include "config.h"
#include "callsite.h"
#include "doors.h"
#include "kernel_args.h"
#include "observe.h"
#include "trace.h"
#include <ompemu/omptarget.h>

static int kernel(ident_t *loc, int64_t device_id, int32_t num_teams,
                  int32_t thread_limit, void *host_ptr, void *kernel_args,
                  const void *ra) {
  struct rt_launch l;
  char why[200];
  if (rt_kernel_args_decode(loc, device_id, num_teams, thread_limit, host_ptr,
                            kernel_args, &l, NULL, why, sizeof why) != 0) {
    ompemu_error("ompemu", "target region " OMPEMU_PTR " not launched: %s",
                 OMPEMU_P(host_ptr), why);
    rt_handle_outcome(OFFLOAD_FAIL, loc);
    return OFFLOAD_FAIL;
  }
  int observed = OBS_ON();
  if (observed)
    rt_construct_ra = ra;
  int rc = rt_target(&l);
  if (observed)
    rt_construct_ra = NULL;
  return rc;
}

RT_EXPORT int __tgt_target_kernel(ident_t *loc, int64_t device_id,
                                  int32_t num_teams, int32_t thread_limit,
                                  void *host_ptr, void *kernel_args) {
  return kernel(loc, device_id, num_teams, thread_limit, host_ptr,
                kernel_args, __builtin_return_address(0));
}

RT_EXPORT int __tgt_target_kernel_nowait(
    ident_t *loc, int64_t device_id, int32_t num_teams, int32_t thread_limit,
    void *host_ptr, void *kernel_args, int32_t dep_num, void *dep_list,
    int32_t noalias_dep_num, void *noalias_dep_list) {
  return kernel(loc, device_id, num_teams, thread_limit, host_ptr,
                kernel_args, __builtin_return_address(0));
}

/* Every launch and data call completes before it returns: a handle, if
 * libomp has one, stands for finished work. */
RT_EXPORT void __tgt_target_nowait_query(void **async_handle) {
  if (async_handle)
    *async_handle = NULL;
}
