/* libomp as flang's kernels on the emu device use it (devicertl_flang.h):
 * its entry points, found in the process once, and the team a thread runs
 * a kernel for. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "config.h"
#include "devicertl_flang.h"
#include "trace.h"

#include <dlfcn.h>
#include <ompemu/abi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct ident_t flang_loc = {0, 2 /* KMP_IDENT_KMPC */, 0, 0,
                            ";unknown;unknown;0;0;;"};

static struct flang_omp omp;
static const char *omp_missing;
static pthread_once_t omp_once = PTHREAD_ONCE_INIT;

static void find_omp(void) {
  static const struct {
    const char *name;
    size_t off;
  } fns[] = {
#define F(field, name) {name, offsetof(struct flang_omp, field)}
      F(gtid, "__kmpc_global_thread_num"),
      F(fork_call, "__kmpc_fork_call"),
      F(fork_teams, "__kmpc_fork_teams"),
      F(push_num_teams, "__kmpc_push_num_teams"),
      F(push_num_threads, "__kmpc_push_num_threads"),
      F(serialized_parallel, "__kmpc_serialized_parallel"),
      F(end_serialized_parallel, "__kmpc_end_serialized_parallel"),
      F(barrier, "__kmpc_barrier"),
      F(critical, "__kmpc_critical"),
      F(end_critical, "__kmpc_end_critical"),
      F(level, "omp_get_level"),
      F(thread_num, "omp_get_thread_num"),
      F(num_threads, "omp_get_num_threads"),
      F(team_num, "omp_get_team_num"),
      F(num_teams, "omp_get_num_teams"),
      F(max_teams, "omp_get_max_teams"),
      F(max_threads, "omp_get_max_threads"),
      F(thread_limit, "omp_get_thread_limit"),
      F(num_procs, "omp_get_num_procs"),
#undef F
  };
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    void *p = dlsym(RTLD_DEFAULT, fns[i].name);
    if (!p && !omp_missing)
      omp_missing = fns[i].name;
    memcpy((char *)&omp + fns[i].off, &p, sizeof p);
  }
}

const struct flang_omp *flang_omp(void) {
  pthread_once(&omp_once, find_omp);
  if (omp_missing) {
    /* Nothing to fall back to: the kernel cannot run as compiled. */
    ompemu_error("emu", "flang's kernels need libomp's %s, which is not in "
                 "the process", omp_missing);
    abort();
  }
  return &omp;
}

int flang_team_threads(void) {
  const struct flang_omp *o = flang_omp();
  return o->level() == 0 ? 1 : o->num_threads();
}

static __thread const struct flang_team *cur_team;

int flang_team_num(void) {
  return cur_team ? cur_team->team_num : flang_omp()->team_num();
}

int flang_num_teams(void) {
  return cur_team ? cur_team->num_teams : flang_omp()->num_teams();
}

const struct flang_team *flang_current_team(void) { return cur_team; }

const struct flang_team *flang_set_team(const struct flang_team *team) {
  const struct flang_team *old = cur_team;
  cur_team = team;
  return old;
}
