/* Whether the calling thread may stand in for a device worker and run a
 * synchronous kernel itself (exec_inline.h, exec_launch_here in exec.c).
 *
 * The kernel must not be able to tell.  What it could tell, beyond what
 * exec.c checks (queues, serial mode, the image's thread-local data):
 * - the stack: a worker has OMPEMU_STACK_SIZE; the calling thread must
 *   have as much left, less 64 KiB (libomp's pool threads, 4 MiB by
 *   default, do not; the main thread and default pthreads do);
 * - for an image that calls into libomp: the thread's libomp state.  A
 *   worker is a libomp root at level 0 with the initial ICVs, so the caller
 *   must be at level 0 with the same ICVs as a new root (read once, on a
 *   worker). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_getattr_np, RTLD_DEFAULT */
#endif
#include "config.h"
#include "exec_inline.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define STACK_SLACK (64u << 10)

int exec_inline_stack_ok(size_t need, uintptr_t *lo) {
  uintptr_t stack_lo = *lo; /* UINTPTR_MAX when unknown */
  if (!stack_lo) {
    pthread_attr_t a;
    void *addr;
    size_t size;
    stack_lo = UINTPTR_MAX;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
      if (pthread_attr_getstack(&a, &addr, &size) == 0)
        stack_lo = (uintptr_t)addr;
      pthread_attr_destroy(&a);
    }
    *lo = stack_lo;
  }
  uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
  need = need > STACK_SLACK ? need - STACK_SLACK : 0;
  return sp > stack_lo && sp - stack_lo >= need;
}

typedef int (*int_fn)(void);
static struct {
  int_fn level, max_threads, dynamic, max_active, max_teams, teams_limit;
  void (*sched)(int *kind, int *chunk);
} omp;
static pthread_once_t omp_once = PTHREAD_ONCE_INIT;

static void find_omp(void) {
  *(void **)&omp.level = dlsym(RTLD_DEFAULT, "omp_get_level");
  *(void **)&omp.max_threads = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
  *(void **)&omp.dynamic = dlsym(RTLD_DEFAULT, "omp_get_dynamic");
  *(void **)&omp.max_active = dlsym(RTLD_DEFAULT, "omp_get_max_active_levels");
  *(void **)&omp.max_teams = dlsym(RTLD_DEFAULT, "omp_get_max_teams");
  *(void **)&omp.teams_limit = dlsym(RTLD_DEFAULT,
                                     "omp_get_teams_thread_limit");
  *(void **)&omp.sched = dlsym(RTLD_DEFAULT, "omp_get_schedule");
}

static int call(int_fn f) { return f ? f() : 0; }

void exec_inline_read_icvs(void *out) {
  struct exec_icvs *v = out;
  pthread_once(&omp_once, find_omp);
  memset(v, 0, sizeof *v);
  v->known = omp.level != NULL;
  v->level = call(omp.level);
  v->max_threads = call(omp.max_threads);
  v->dynamic = call(omp.dynamic);
  v->max_active = call(omp.max_active);
  v->max_teams = call(omp.max_teams);
  v->teams_limit = call(omp.teams_limit);
  if (omp.sched)
    omp.sched(&v->sched_kind, &v->sched_chunk);
}

int exec_inline_icvs_ok(const struct exec_icvs *fresh) {
  if (!fresh->known)
    return 1; /* no libomp in the process: nothing to tell apart */
  if (omp.level() != 0)
    return 0; /* a host parallel region, or a hidden helper's team */
  struct exec_icvs v;
  exec_inline_read_icvs(&v);
  return v.max_threads == fresh->max_threads && v.dynamic == fresh->dynamic &&
         v.max_active == fresh->max_active &&
         v.max_teams == fresh->max_teams &&
         v.teams_limit == fresh->teams_limit &&
         v.sched_kind == fresh->sched_kind &&
         v.sched_chunk == fresh->sched_chunk;
}
