/* How a flang kernel starts on the emu device (devicertl_flang.h): its
 * league of teams, from the launch and its KernelEnvironment.
 *
 * The KernelEnvironment (docs/abi-clang22.md section 7.2) starts with its
 * configuration: u8 UseGenericStateMachine, u8 MayUseNestedParallelism,
 * u8 ExecMode (1 generic, 2 SPMD), then int32 MinThreads, MaxThreads,
 * MinTeams, MaxTeams at offsets 4, 8, 12 and 16.  flang writes MaxTeams -1
 * for a kernel without a teams construct, the num_teams clause's value
 * when it is a constant, else 0; MaxThreads is the thread_limit clause's
 * value, else 256 (flang's default).
 *
 * The league:
 *   - no teams construct: one team.  The runtime then launches it through
 *     run_target_region, whose context says 1 team of 1 thread: those are
 *     placeholders, not clauses, so the kernel's own MaxThreads is its limit;
 *   - otherwise the launch's num_teams, else MaxTeams, else OMP_NUM_TEAMS,
 *     else one team per processor; libomp may form fewer (it caps a league
 *     at KMP_TEAMS_THREAD_LIMIT threads, the processor count by default);
 *   - threads per team: at most the launch's thread_limit and the kernel's
 *     MaxThreads; libomp's default below that.
 * A league of one team runs the kernel on the device worker itself: libomp
 * 14 cannot run a one-team teams construct on a thread that has led a
 * parallel team (README.md, "libomp 14, teams and if").
 *
 * libomp forms at most KMP_TEAMS_THREAD_LIMIT threads of teams (the
 * processor count by default) and warns when asked for more teams: a
 * kernel's num_teams(4) would run as 2 teams on 2 processors, where a GPU
 * forms 4.  Unless the user set KMP_TEAMS_THREAD_LIMIT, raise_league_cap
 * raises it (kmp_set_defaults, libomp 14 and 19) to what the league needs,
 * up to MAX_LEAGUE_THREADS; it only ever grows. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "config.h"
#include "devicertl_flang.h"
#include "trace.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_LEAGUE_THREADS 1024

/* The configuration part of a KernelEnvironment. */
struct kernel_config {
  uint8_t exec_mode;
  int32_t max_threads, max_teams;
};

static void read_config(const void *env, struct kernel_config *c) {
  const unsigned char *p = env;
  c->exec_mode = p[2];
  memcpy(&c->max_threads, p + 8, 4);
  memcpy(&c->max_teams, p + 16, 4);
}

static const char *mode_name(uint8_t mode) {
  switch (mode) {
  case 1:
    return "generic";
  case 2:
    return "SPMD";
  case 3:
    return "generic-SPMD";
  default:
    return "other";
  }
}

/* One launch of a kernel as a league. */
struct league {
  ffi_cif *cif;
  void *entry;
  void **av;
  struct emu_devctx *ctx;
  struct flang_team team;
  atomic_int formed; /* teams libomp formed */
};

/* Run L's kernel on the calling thread as the initial thread of TEAM. */
static void run_team(struct league *l, const struct flang_team *team) {
  struct emu_devctx *old_ctx = emu_current_ctx();
  emu_set_ctx(l->ctx);
  const struct flang_team *old_team = flang_set_team(team);
  ffi_call(l->cif, FFI_FN(l->entry), NULL, l->av);
  flang_set_team(old_team);
  emu_set_ctx(old_ctx);
}

/* The teams region's outlined function, for libomp's __kmpc_fork_teams. */
static void team_main(int32_t *gtid, int32_t *btid, struct league *l) {
  (void)gtid;
  (void)btid;
  const struct flang_omp *o = flang_omp();
  struct flang_team team = l->team;
  team.team_num = o->team_num();
  team.num_teams = o->num_teams();
  if (team.team_num == 0)
    atomic_store(&l->formed, team.num_teams);
  run_team(l, &team);
}

/* The smaller of two limits, each 0 or less when there is none. */
static int32_t min_limit(int32_t a, int32_t b) {
  if (a <= 0)
    return b > 0 ? b : 0;
  return b > 0 && b < a ? b : a;
}

/* Let libomp form NTEAMS teams of PER_TEAM threads (0: one) at least. */
static void raise_league_cap(int32_t nteams, int32_t per_team) {
  /* what libomp allows now; 0: not known yet, -1: leave it alone */
  static atomic_int cap;
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  static void (*set)(const char *);
  int64_t need = (int64_t)nteams * (per_team > 0 ? per_team : 1);
  if (need > MAX_LEAGUE_THREADS)
    need = MAX_LEAGUE_THREADS;
  int now = atomic_load_explicit(&cap, memory_order_acquire);
  if (now < 0 || (now > 0 && need <= now))
    return;
  pthread_mutex_lock(&mu);
  now = atomic_load(&cap);
  if (now == 0) { /* first league: the user's setting, else the default */
    const char *env = getenv("KMP_TEAMS_THREAD_LIMIT");
    set = (void (*)(const char *))dlsym(RTLD_DEFAULT, "kmp_set_defaults");
    /* libomp's default is the processor count (not the affinity mask's):
     * never below that */
    long procs = sysconf(_SC_NPROCESSORS_ONLN);
    now = flang_omp()->num_procs();
    if (procs > now)
      now = (int)procs;
    if ((env && *env) || !set)
      now = -1;
    atomic_store(&cap, now);
  }
  if (now > 0 && need > now) {
    char setting[64];
    snprintf(setting, sizeof setting, "KMP_TEAMS_THREAD_LIMIT=%d", (int)need);
    set(setting);
    ompemu_trace(2, "emu", "libomp's league limit raised from %d to %d "
                 "threads (KMP_TEAMS_THREAD_LIMIT)", now, (int)need);
    atomic_store_explicit(&cap, (int)need, memory_order_release);
  }
  pthread_mutex_unlock(&mu);
}

void devicertl_call_kernel(ffi_cif *cif, void *entry, void **av,
                           struct emu_devctx *ctx) {
  if (!ctx || !ctx->kernel_env) {
    ffi_call(cif, FFI_FN(entry), NULL, av);
    return;
  }
  const struct flang_omp *o = flang_omp();
  struct kernel_config kc;
  read_config(ctx->kernel_env, &kc);
  struct league l = {cif, entry, av, ctx, {0, 0, 1}, 1};
  int32_t nteams = 1, pushed_limit = 0;
  if (kc.max_teams < 0) {
    l.team.thread_limit = min_limit(kc.max_threads, 0);
  } else {
    nteams = ctx->num_teams > 0   ? ctx->num_teams
             : kc.max_teams > 0   ? kc.max_teams
             : o->max_teams() > 0 ? o->max_teams()
                                  : o->num_procs();
    pushed_limit = ctx->thread_limit > 0 ? ctx->thread_limit : 0;
    l.team.thread_limit = min_limit(pushed_limit, kc.max_threads);
  }
  if (nteams <= 1) {
    ompemu_trace(2, "emu", "device %d: kernel " OMPEMU_PTR " (flang, %s): 1 "
                 "team on the worker, thread limit %d", ctx->device,
                 OMPEMU_P(entry), mode_name(kc.exec_mode),
                 (int)l.team.thread_limit);
    run_team(&l, &l.team);
    return;
  }
  raise_league_cap(nteams, pushed_limit);
  o->push_num_teams(&flang_loc, o->gtid(&flang_loc), nteams, pushed_limit);
  o->fork_teams(&flang_loc, 1, (void *)team_main, &l);
  ompemu_trace(2, "emu", "device %d: kernel " OMPEMU_PTR " (flang, %s): a "
               "league of %d teams (%d asked), thread limit %d", ctx->device,
               OMPEMU_P(entry), mode_name(kc.exec_mode),
               atomic_load(&l.formed), (int)nteams, (int)l.team.thread_limit);
}
