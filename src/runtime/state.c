/* Process-wide state of the runtime: rt_state and its lock, the
 * registration generation, and the environment read when libomptarget.so
 * is loaded (LIBOMPTARGET_INFO, LIBOMPTARGET_MAP_FORCE_ATOMIC). */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"
#include "envvar.h"

#include <stdlib.h>
#include <string.h>

/* An error-checking mutex: nothing may take it twice (the exit handler
 * used to), and if something does, it is said instead of deadlocking. */
struct rt_state rt_state = {
    .lock = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP,
    .requires_flags = OMP_REQ_UNDEFINED,
};
_Atomic unsigned rt_libs_gen = 1;

void rt_state_lock(void) {
  int e = pthread_mutex_lock(&rt_state.lock);
  if (e) {
    ompemu_report(OMPEMU_FATAL, "ompemu: internal error: ",
                  "the runtime's state lock was taken twice by one thread "
                  "(%s)", strerror(e));
    abort();
  }
}

void rt_state_unlock(void) { pthread_mutex_unlock(&rt_state.lock); }

int32_t rt_num_devices(void) {
  return __atomic_load_n(&rt_state.num_devices, __ATOMIC_ACQUIRE);
}

int rt_usm(void) {
  return (rt_state.requires_flags & OMP_REQ_UNIFIED_SHARED_MEMORY) != 0;
}

__attribute__((constructor(101))) static void rt_read_environment(void) {
  uint32_t info;
  ompemu_env_info(&info);
  rt_state.info_flags = info;
  /* LIBOMPTARGET_MAP_FORCE_ATOMIC is only checked (LLVM 14's warning):
   * ompemu always behaves as "true": copies to and from a mapped entry are
   * made while the entry is held busy, one thread at a time (mapping.h). */
  const char *s = getenv("LIBOMPTARGET_MAP_FORCE_ATOMIC");
  if (s && strcmp(s, "true") && strcmp(s, "TRUE") && strcmp(s, "false") &&
      strcmp(s, "FALSE"))
    ompemu_report(OMPEMU_WARNING, "Warning: ", "'LIBOMPTARGET_MAP_FORCE_ATOMIC'"
                  " accepts only 'true'/'TRUE' or 'false'/'FALSE' as options, "
                  "'%s' ignored", s);
}
