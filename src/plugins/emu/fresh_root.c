/* Teams constructs of one team on a fresh libomp root (see fresh_root.h
 * and README.md, "libomp 14, teams and if").
 *
 * libomp 14 keeps, in each root thread's hot team, the task teams of the
 * last real parallel team the thread led.  When that thread later forks a
 * teams construct of one team, the league reuses the hot team without
 * those task teams being set up again, and a parallel region serialized
 * inside it (an `if` that is false) fails libomp's check that the thread's
 * task team is its team's: "Assertion failure at kmp_runtime.cpp(1122)".
 * Only thread exit (or a hard pause of the whole runtime) clears that
 * state.  The emu device's workers run every kernel, so after their first
 * kernel they are such threads.
 *
 * So in an image that can serialize a parallel region (it imports
 * __kmpc_serialized_parallel), the loader binds __kmpc_push_num_teams and
 * __kmpc_fork_teams to the stand-ins below.  A push is kept until the
 * fork.  A fork of one team (the pushed count, else omp_get_max_teams())
 * on a worker that has run a kernel before, or has forked in this kernel
 * already, runs on a new thread: a fresh libomp root, with the worker's
 * device context, joined before the kernel goes on; libomp unregisters the
 * root when the thread ends.  Everything else goes to libomp unchanged.
 * The price is a thread per such construct: 20-60 us on a quiet machine,
 * up to 2 ms on a loaded one (README.md).  OMPEMU_TEAMS_FRESH_ROOT=0 turns
 * this off. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "config.h"
#include "fresh_root.h"
#include "devicertl.h"
#include "envvar.h"
#include "exec.h"
#include "trace.h"

#include <dlfcn.h>
#include <ffi.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 256 /* shared variables of a teams region, far above clang's */

typedef void (*push_fn)(void *loc, int32_t gtid, int32_t nteams,
                        int32_t nthreads);
typedef void (*push51_fn)(void *loc, int32_t gtid, int32_t lb, int32_t ub,
                          int32_t nthreads);
typedef int32_t (*gtid_fn)(void *loc);
typedef int (*max_teams_fn)(void);

static struct {
  int enabled;
  push_fn push;
  push51_fn push51; /* __kmpc_push_num_teams_51, NULL in older libomps */
  void *fork; /* __kmpc_fork_teams, variadic: called through libffi */
  gtid_fn gtid;
  max_teams_fn max_teams;
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* libomp's own entry points, if libomp is in the process. */
static void find_real(void) {
  int on = 1;
  ompemu_env_bool("OMPEMU_TEAMS_FRESH_ROOT", 1, &on);
  *(void **)&real.push = dlsym(RTLD_DEFAULT, "__kmpc_push_num_teams");
  *(void **)&real.push51 = dlsym(RTLD_DEFAULT, "__kmpc_push_num_teams_51");
  real.fork = dlsym(RTLD_DEFAULT, "__kmpc_fork_teams");
  *(void **)&real.gtid = dlsym(RTLD_DEFAULT, "__kmpc_global_thread_num");
  *(void **)&real.max_teams = dlsym(RTLD_DEFAULT, "omp_get_max_teams");
  real.enabled = on && real.push && real.fork && real.gtid && real.max_teams;
}

/* A __kmpc_push_num_teams (SET 1) or _51 (SET 2, bounds LB..NTEAMS) kept
 * for the next fork of this thread. */
struct push {
  int set;
  void *loc;
  int32_t nteams, nthreads, lb;
};
static __thread struct push pending;
/* The worker's kernel count when it last forked teams itself. */
static __thread unsigned long forked_in;

/* A teams construct to fork: its pushed counts, and the arguments. */
struct fork_job {
  struct push push;
  void *loc;
  int32_t argc;
  void *microtask;
  void **argv;
  struct emu_devctx ctx; /* for the fresh thread */
};

/* Fork J on the calling thread: push its counts (with this thread's gtid),
 * then call libomp's __kmpc_fork_teams with its arguments. */
static void fork_here(const struct fork_job *j) {
  if (j->push.set == 1)
    real.push(j->push.loc, real.gtid(j->push.loc), j->push.nteams,
              j->push.nthreads);
  else if (j->push.set == 2)
    real.push51(j->push.loc, real.gtid(j->push.loc), j->push.lb,
                j->push.nteams, j->push.nthreads);
  int32_t n = j->argc;
  ffi_type *types[3 + MAX_ARGS];
  void *vals[3 + MAX_ARGS];
  types[0] = &ffi_type_pointer;
  types[1] = &ffi_type_sint32;
  types[2] = &ffi_type_pointer;
  vals[0] = (void *)&j->loc;
  vals[1] = (void *)&j->argc;
  vals[2] = (void *)&j->microtask;
  for (int32_t i = 0; i < n; i++) {
    types[3 + i] = &ffi_type_pointer;
    vals[3 + i] = &j->argv[i];
  }
  ffi_cif cif;
  if (ffi_prep_cif_var(&cif, FFI_DEFAULT_ABI, 3, (unsigned)(3 + n),
                       &ffi_type_void, types) != FFI_OK) {
    /* Nothing to fall back to: the construct cannot run at all. */
    ompemu_error("emu", "libffi cannot prepare the call of "
                 "__kmpc_fork_teams with %d arguments", (int)n);
    abort();
  }
  ffi_call(&cif, FFI_FN(real.fork), NULL, vals);
}

static void *fresh_main(void *arg) {
  struct fork_job *j = arg;
  emu_set_ctx(&j->ctx);
  fork_here(j);
  emu_set_ctx(NULL);
  return NULL;
}

/* Fork J on a new thread and wait for it; on this thread if none can be
 * started (with a warning: libomp may then abort). */
static void fork_fresh(struct fork_job *j) {
  struct emu_devctx *c = emu_current_ctx();
  j->ctx = *c;
  pthread_attr_t at;
  pthread_t th;
  int e = pthread_attr_init(&at);
  size_t stack = exec_worker_stack_size();
  if (!e && stack)
    e = pthread_attr_setstacksize(&at, stack);
  if (!e)
    e = pthread_create(&th, &at, fresh_main, j);
  pthread_attr_destroy(&at);
  if (e) {
    ompemu_warning("emu", "device %d: cannot start a thread for a teams "
                   "construct (%s); forking it on the worker", c->device,
                   strerror(e));
    fork_here(j);
    return;
  }
  pthread_join(th, NULL);
  ompemu_trace(2, "emu", "device %d: a teams construct of one team ran on a "
               "fresh thread (libomp 14's serialized-parallel check)",
               c->device);
}

static void stand_in_push_num_teams(void *loc, int32_t gtid, int32_t nteams,
                                    int32_t nthreads) {
  if (!exec_on_worker() || !emu_current_ctx()) {
    real.push(loc, gtid, nteams, nthreads);
    return;
  }
  pending = (struct push){1, loc, nteams, nthreads, 0};
}

static void stand_in_push_num_teams_51(void *loc, int32_t gtid, int32_t lb,
                                       int32_t ub, int32_t nthreads) {
  if (!exec_on_worker() || !emu_current_ctx()) {
    real.push51(loc, gtid, lb, ub, nthreads);
    return;
  }
  pending = (struct push){2, loc, ub, nthreads, lb};
}

static void stand_in_fork_teams(void *loc, int32_t argc, void *microtask,
                                ...) {
  if (argc < 0 || argc > MAX_ARGS) {
    ompemu_error("emu", "__kmpc_fork_teams with %d arguments (at most %d)",
                 (int)argc, MAX_ARGS);
    abort();
  }
  void *argv[MAX_ARGS];
  va_list ap;
  va_start(ap, microtask);
  for (int32_t i = 0; i < argc; i++)
    argv[i] = va_arg(ap, void *);
  va_end(ap);
  struct fork_job j = {pending, loc, argc, microtask, argv, {0}};
  pending.set = 0;
  unsigned long k = exec_worker_kernels();
  if (k && emu_current_ctx()) {
    /* An upper bound of 0 or less means "not given": libomp's default. */
    int32_t league = j.push.set && j.push.nteams > 0 ? j.push.nteams
                                                     : real.max_teams();
    int used = k > 1 || forked_in == k; /* it may have led a real team */
    forked_in = k;
    if (league <= 1 && used) {
      fork_fresh(&j);
      return;
    }
  }
  fork_here(&j);
}

void *fresh_root_lookup(const char *name) {
  pthread_once(&real_once, find_real);
  if (!real.enabled || !name)
    return NULL;
  if (strcmp(name, "__kmpc_fork_teams") == 0)
    return (void *)stand_in_fork_teams;
  if (strcmp(name, "__kmpc_push_num_teams") == 0)
    return (void *)stand_in_push_num_teams;
  if (strcmp(name, "__kmpc_push_num_teams_51") == 0 && real.push51)
    return (void *)stand_in_push_num_teams_51;
  return NULL;
}
