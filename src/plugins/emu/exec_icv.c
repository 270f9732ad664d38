/* The thread-limit ICV of the thread that launches a kernel, carried to the
 * thread that runs it (exec_icv.h).  clang 19 and 22 lower `target
 * thread_limit(N)` to __kmpc_set_thread_limit in the target task, on the
 * launching thread: a device worker, a libomp root of its own, would not
 * see it, so it takes the value for the kernel and gives its own back. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "config.h"
#include "exec_icv.h"

#include <dlfcn.h>
#include <pthread.h>

static struct {
  int (*get)(void);
  int32_t (*gtid)(void *loc);
  void (*set)(void *loc, int32_t gtid, int32_t limit);
} omp;
static pthread_once_t omp_once = PTHREAD_ONCE_INIT;

static void find_omp(void) {
  *(void **)&omp.get = dlsym(RTLD_DEFAULT, "omp_get_thread_limit");
  *(void **)&omp.gtid = dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num");
  /* libomp 19 and later; without it no program sets the ICV this way. */
  *(void **)&omp.set = dlsym(RTLD_DEFAULT, "__kmpc_set_thread_limit");
}

int32_t exec_icv_thread_limit(void) {
  pthread_once(&omp_once, find_omp);
  return omp.get && omp.gtid && omp.set ? (int32_t)omp.get() : 0;
}

int32_t exec_icv_thread_limit_enter(int32_t want) {
  if (want <= 0)
    return 0;
  int32_t own = exec_icv_thread_limit();
  if (own <= 0 || own == want)
    return 0;
  omp.set(NULL, omp.gtid(NULL), want);
  return own;
}

void exec_icv_thread_limit_leave(int32_t own) {
  /* The worker's own value back (libomp takes no 0 to clear it). */
  if (own > 0)
    omp.set(NULL, omp.gtid(NULL), own);
}
