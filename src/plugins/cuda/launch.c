/* Kernel launch: teams become the grid (x), thread_limit the block (x);
 * each kernel argument is the pointer value args[i] + offsets[i], passed to
 * cuLaunchKernel as an array of pointers to those values, as clang's nvptx
 * kernels take them.  Defaults when 0 are documented in README.md:
 * CU_DEFAULT_THREADS threads per team; CU_TEAMS_PER_SM teams per SM
 * (CU_FALLBACK_TEAMS when the SM count is unknown), lowered to the number of
 * teams the loop trip count needs when that is smaller (one iteration per
 * team for generic-mode kernels, one per thread otherwise).  A generic-mode
 * kernel given a thread_limit gets one more warp for its main thread, as
 * LLVM 14's device runtime expects. */
#include "config.h"
#include "cuda_rtl.h"

#include <stdlib.h>

/* Kernels with at most this many arguments launch with no allocation. */
#define CU_STACK_ARGS 16

/* The launch geometry for NUM_TEAMS / THREAD_LIMIT / TRIPCOUNT on D. */
static void geometry(const struct cu_device *d, const struct cu_kernel *k,
                     int32_t num_teams, int32_t thread_limit,
                     uint64_t tripcount, unsigned *grid, unsigned *block) {
  long b = thread_limit > 0 ? thread_limit : CU_DEFAULT_THREADS;
  if (thread_limit > 0 && k->exec_mode == CU_EXEC_GENERIC)
    b += d->warp_size > 0 ? d->warp_size : 32;
  if (d->max_threads > 0 && b > d->max_threads)
    b = d->max_threads;
  long g;
  if (num_teams > 0) {
    g = num_teams;
  } else {
    g = d->num_sms > 0 ? (long)d->num_sms * CU_TEAMS_PER_SM : CU_FALLBACK_TEAMS;
    if (tripcount > 0) {
      uint64_t per = k->exec_mode == CU_EXEC_SPMD ? (uint64_t)b : 1;
      uint64_t need = (tripcount + per - 1) / per;
      if (need < (uint64_t)g)
        g = (long)need;
    }
  }
  if (d->max_grid_x > 0 && g > d->max_grid_x)
    g = d->max_grid_x;
  *grid = (unsigned)g;
  *block = (unsigned)b;
}

int32_t cu_launch(int32_t id, void *entry, void **args, ptrdiff_t *offsets,
                  int32_t n, int32_t teams, int32_t threads,
                  uint64_t tripcount, __tgt_async_info *ai) {
  struct cu_device *d = cu_enter(id, "run_target_region");
  if (!d)
    return OFFLOAD_FAIL;
  struct cu_kernel *k = entry;
  if (!k || k->magic != CU_KERNEL_MAGIC || k->device != id) {
    ompemu_error(CU_WHO, "run_target_region on device %d: 0x%016lx is not a "
                         "kernel this plugin loaded for the device",
                 (int)id, OMPEMU_P(entry));
    return OFFLOAD_FAIL;
  }
  if (n < 0)
    return OFFLOAD_FAIL;
  /* One block: the values, then the pointers to them, then a NULL after the
   * last pointer (the driver ignores it; the test double counts with it).
   * On the stack for the usual few arguments: no allocation per launch. */
  void *small[2 * CU_STACK_ARGS + 1];
  void **vals = n <= CU_STACK_ARGS ? small
                                   : malloc(((size_t)n * 2 + 1) * sizeof *vals);
  if (!vals)
    return OFFLOAD_FAIL;
  void **params = vals + n;
  for (int32_t i = 0; i < n; i++) {
    vals[i] = (char *)args[i] + (offsets ? offsets[i] : 0);
    params[i] = &vals[i];
  }
  params[n] = NULL;

  unsigned grid, block;
  geometry(d, k, teams, threads, tripcount, &grid, &block);
  CUstream s = ai ? cu_queue(d, id, ai) : cu_stream_get(d, id);
  if (!s || cu_use(d, id, "run_target_region") != 0) {
    if (s && !ai)
      cu_stream_put(d, id, s);
    if (vals != small)
      free(vals);
    return OFFLOAD_FAIL;
  }
  ompemu_trace(2, CU_WHO, "device %d: launch %s grid %u block %u (%d args) on "
               "stream " OMPEMU_PTR, (int)id, k->name, grid, block, (int)n,
               OMPEMU_P(s));
  CUresult r = cu.cuLaunchKernel(k->fn, grid, 1, 1, block, 1, 1, 0, s, params,
                                 NULL);
  int rc = cu_check(r, "cuLaunchKernel", id, "kernel '%s' (grid %u, block %u, "
                    "%d args)", k->name, grid, block, (int)n);
  if (!ai) {
    /* The launch's parameters are copied by the driver at the call, so the
     * arrays may go; a synchronous launch (the runtime asked for one: it
     * has no queue for this region) waits here. */
    if (rc == 0)
      rc = cu_check(cu.cuStreamSynchronize(s), "cuStreamSynchronize", id,
                    "kernel '%s' on stream 0x%016lx", k->name, OMPEMU_P(s));
    if (rc == 0)
      rc = cu_stream_put(d, id, s);
    else
      cu.cuStreamDestroy(s); /* may hold a sticky error: not reused */
  }
  if (vals != small)
    free(vals);
  return rc ? OFFLOAD_FAIL : OFFLOAD_SUCCESS;
}

CU_EXPORT int32_t __tgt_rtl_run_target_team_region(
    int32_t id, void *entry, void **args, ptrdiff_t *offsets, int32_t n,
    int32_t teams, int32_t threads, uint64_t tripcount) {
  return cu_launch(id, entry, args, offsets, n, teams, threads, tripcount, NULL);
}

CU_EXPORT int32_t __tgt_rtl_run_target_team_region_async(
    int32_t id, void *entry, void **args, ptrdiff_t *offsets, int32_t n,
    int32_t teams, int32_t threads, uint64_t tripcount, __tgt_async_info *ai) {
  return cu_launch(id, entry, args, offsets, n, teams, threads, tripcount, ai);
}

/* A plain target region is one team of the default number of threads, as
 * LLVM 14's cuda plugin launches it. */
CU_EXPORT int32_t __tgt_rtl_run_target_region(int32_t id, void *entry,
                                              void **args, ptrdiff_t *offsets,
                                              int32_t n) {
  return cu_launch(id, entry, args, offsets, n, 1, 0, 0, NULL);
}

CU_EXPORT int32_t __tgt_rtl_run_target_region_async(
    int32_t id, void *entry, void **args, ptrdiff_t *offsets, int32_t n,
    __tgt_async_info *ai) {
  return cu_launch(id, entry, args, offsets, n, 1, 0, 0, ai);
}
