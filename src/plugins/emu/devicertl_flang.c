/* The device runtime of flang 22's GPU-style kernels (devicertl_flang.h):
 * kernel entry and exit, parallel regions, and the libomp calls of those
 * kernels that libomp's own versions get wrong on the emu device.
 *
 * Prototypes from flang's device IR and LLVM's GPU device runtime
 * (docs/abi-clang22.md section 7.2):
 *   int  __kmpc_target_init(KernelEnvironment *, void *dyn_ptr)
 *   void __kmpc_target_deinit(void)
 *   void __kmpc_parallel_60(ident *, i32 gtid, i32 if_expr, i32 num_threads,
 *                           i32 proc_bind, fn, wrapper_fn, void **args,
 *                           i64 nargs, i32 strict)
 * where fn is fn(i32 *gtid, i32 *bound_tid, args[0], ..., args[nargs-1]).
 * flang passes -1 for num_threads and proc_bind when the clauses are absent
 * (a proc_bind clause is a __kmpc_push_proc_bind call before), NULL for the
 * wrapper, 0 for strict. */
#include "config.h"
#include "devicertl_flang.h"
#include "trace.h"

#include <ffi.h>
#include <ompemu/abi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 256 /* shared variables of one parallel region */

/* ---- kernel entry and exit ---- */

/* Every caller is the initial thread of its team (devicertl_league.c),
 * the thread that runs the kernel's user code: -1. */
static int32_t rtl_target_init(void *kernel_env, void *dyn_ptr) {
  (void)kernel_env;
  (void)dyn_ptr;
  return -1;
}

static void rtl_target_deinit(void) {}

/* ---- parallel regions ---- */

static ffi_type *ptr_types[MAX_ARGS + 3];
static pthread_once_t types_once = PTHREAD_ONCE_INIT;

static void init_types(void) {
  for (size_t i = 0; i < sizeof ptr_types / sizeof ptr_types[0]; i++)
    ptr_types[i] = &ffi_type_pointer;
}

/* Report that libffi cannot prepare a call of WHAT with N arguments and
 * abort: the region cannot run at all. */
static void no_call(const char *what, int64_t n) __attribute__((noreturn));
static void no_call(const char *what, int64_t n) {
  ompemu_error("emu", "flang kernel: cannot call %s with %ld arguments (at "
               "most %d)", what, (long)n, MAX_ARGS);
  abort();
}

/* FN(GTID, BTID, ARGS[0], ..., ARGS[N-1]), FN an outlined parallel region. */
static void call_outlined(void *fn, int32_t *gtid, int32_t *btid, void **args,
                          int64_t n) {
  if (n == 0) {
    ((void (*)(int32_t *, int32_t *))fn)(gtid, btid);
    return;
  }
  if (n == 1) {
    ((void (*)(int32_t *, int32_t *, void *))fn)(gtid, btid, args[0]);
    return;
  }
  ffi_cif cif;
  void *vals[MAX_ARGS + 2];
  pthread_once(&types_once, init_types);
  if (n > MAX_ARGS || ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)n + 2,
                                   &ffi_type_void, ptr_types) != FFI_OK)
    no_call("a parallel region", n);
  vals[0] = &gtid;
  vals[1] = &btid;
  for (int64_t i = 0; i < n; i++)
    vals[2 + i] = &args[i];
  ffi_call(&cif, FFI_FN(fn), NULL, vals);
}

/* A parallel region as forked: its outlined function and arguments, and
 * the team whose threads run it. */
struct region {
  void *fn;
  void **args;
  int64_t nargs;
  struct flang_team team;
};

/* The microtask forked for a region: FN on this thread, which belongs to
 * R's team for the time of the region. */
static void region_main(int32_t *gtid, int32_t *btid, struct region *r) {
  const struct flang_team *old = flang_set_team(&r->team);
  call_outlined(r->fn, gtid, btid, r->args, r->nargs);
  flang_set_team(old);
}

/* The thread count to push for a region with NUM_THREADS (-1: no clause)
 * in a team whose kernel allows LIMIT threads (0: any): 0 for none. */
static int32_t region_threads(int32_t num_threads, int32_t limit) {
  int32_t want = num_threads > 0 ? num_threads : 0;
  if (limit > 0) {
    if (!want && flang_omp()->max_threads() > limit)
      want = limit;
    else if (want > limit)
      want = limit;
  }
  return want;
}

static void rtl_parallel_60(ident_t *loc, int32_t gtid, int32_t if_expr,
                            int32_t num_threads, int32_t proc_bind, void *fn,
                            void *wrapper_fn, void **args, int64_t nargs,
                            int32_t strict) {
  (void)proc_bind; /* flang pushes a proc_bind clause itself */
  (void)wrapper_fn; /* for GPUs' generic-mode state machine */
  (void)strict;
  const struct flang_omp *o = flang_omp();
  if (nargs < 0 || (nargs > 0 && !args)) {
    ompemu_error("emu", "flang kernel: a parallel region with %ld arguments "
                 "at " OMPEMU_PTR, (long)nargs, OMPEMU_P(args));
    abort();
  }
  if (!loc)
    loc = &flang_loc;
  if (!if_expr) {
    int32_t zero = 0;
    o->serialized_parallel(loc, gtid);
    call_outlined(fn, &gtid, &zero, args, nargs);
    o->end_serialized_parallel(loc, gtid);
    return;
  }
  if (nargs > MAX_ARGS)
    no_call("a parallel region", nargs);
  const struct flang_team *t = flang_current_team();
  int32_t n = region_threads(num_threads, t ? t->thread_limit : 0);
  if (n > 0)
    o->push_num_threads(loc, gtid, n);
  struct region r = {fn, args, nargs, {0, 0, 1}};
  if (t)
    r.team = *t;
  else { /* not in a kernel the emu device started: libomp's team */
    r.team.team_num = o->team_num();
    r.team.num_teams = o->num_teams();
  }
  o->fork_call(loc, 1, (void *)region_main, &r);
}

/* ---- libomp calls that need another answer on the emu device ---- */

/* A reduction: libomp may pick a tree reduction whose final combine by
 * each team's primary thread is not protected against the other teams
 * (flang's kernels combine straight into the mapped variable), or the
 * atomic method (2), which flang's kernels do not implement.  So always
 * the critical method: the lock is the reduction's named critical section,
 * one for the whole device, and every caller combines (1). */
static int32_t rtl_reduce(ident_t *loc, int32_t gtid, int32_t nvars,
                          size_t size, void *data, void *func, void *lock) {
  (void)nvars, (void)size, (void)data, (void)func;
  flang_omp()->critical(loc ? loc : &flang_loc, gtid, lock);
  return 1;
}

/* The blocking form ends with a barrier of the team: none outside a
 * parallel region, where the caller is its team's only thread. */
static void rtl_end_reduce(ident_t *loc, int32_t gtid, void *lock) {
  const struct flang_omp *o = flang_omp();
  o->end_critical(loc ? loc : &flang_loc, gtid, lock);
  if (o->level() > 0)
    o->barrier(loc ? loc : &flang_loc, gtid);
}

static void rtl_end_reduce_nowait(ident_t *loc, int32_t gtid, void *lock) {
  flang_omp()->end_critical(loc ? loc : &flang_loc, gtid, lock);
}

/* A barrier outside any parallel region binds to the team's initial thread
 * alone, as on a GPU; libomp 14 would wait there for the league's idle
 * threads forever. */
static void rtl_barrier(ident_t *loc, int32_t gtid) {
  const struct flang_omp *o = flang_omp();
  if (o->level() == 0) {
    atomic_thread_fence(memory_order_seq_cst);
    return;
  }
  o->barrier(loc ? loc : &flang_loc, gtid);
}

/* Outside a parallel region a team has one thread; libomp 14 answers the
 * league's thread limit there. */
static int rtl_get_num_threads(void) { return flang_team_threads(); }

/* libomp answers team 0 in a serialized parallel region at the teams
 * level. */
static int rtl_get_team_num(void) { return flang_team_num(); }
static int rtl_get_num_teams(void) { return flang_num_teams(); }

/* The kernel's threads per team (its thread_limit clause, else the emu
 * device's default), as a GPU answers; libomp would answer its own
 * process-wide limit.  Outside a kernel, or with no limit, libomp's. */
static int rtl_get_thread_limit(void) {
  const struct flang_team *t = flang_current_team();
  if (t && t->thread_limit > 0)
    return t->thread_limit;
  return flang_omp()->thread_limit();
}

static const struct {
  const char *name;
  void *fn;
} table[] = {
    {"__kmpc_target_init", (void *)rtl_target_init},
    {"__kmpc_target_deinit", (void *)rtl_target_deinit},
    {"__kmpc_parallel_60", (void *)rtl_parallel_60},
    {"__kmpc_reduce", (void *)rtl_reduce},
    {"__kmpc_end_reduce", (void *)rtl_end_reduce},
    {"__kmpc_reduce_nowait", (void *)rtl_reduce},
    {"__kmpc_end_reduce_nowait", (void *)rtl_end_reduce_nowait},
    {"__kmpc_barrier", (void *)rtl_barrier},
    {"omp_get_num_threads", (void *)rtl_get_num_threads},
    {"omp_get_team_num", (void *)rtl_get_team_num},
    {"omp_get_num_teams", (void *)rtl_get_num_teams},
    {"omp_get_thread_limit", (void *)rtl_get_thread_limit},
};

void *devicertl_flang_lookup(const char *name) {
  if (!name)
    return NULL;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(table[i].name, name) == 0)
      return table[i].fn;
  return flang_loop_lookup(name);
}
