/* How the emu device runs flang 22's GPU-style kernels (docs/abi-clang22.md
 * section 7.2, src/plugins/emu/README.md "flang's kernels").
 *
 * A flang kernel K(dyn_ptr, args...) calls __kmpc_target_init first and runs
 * its user code only when that returns -1; its teams region is inline code,
 * its parallel regions go through __kmpc_parallel_60 and its loops through
 * __kmpc_*_static_loop_*.  On a GPU every thread of every block enters K.
 * On the emu device K is entered once per team, by the team's initial
 * thread, and everything else is libomp's:
 *   - the league (devicertl_league.c): a kernel with a teams construct and
 *     more than one team runs inside libomp's __kmpc_fork_teams, each
 *     team's initial thread calling K; one team (or no teams construct)
 *     calls K on the device worker itself;
 *   - __kmpc_parallel_60 (devicertl_flang.c) forks a libomp parallel region
 *     (__kmpc_fork_call) of the team;
 *   - the static loops (devicertl_loops.c) give each team and thread its
 *     share of the iterations from libomp's team and thread numbers;
 *   - barriers, reductions, critical sections, single, tasks: libomp's,
 *     except the few calls devicertl_flang_lookup replaces.
 * devicertl_omp.c holds libomp's entry points and the calling thread's
 * team; this header is what those four files share. */
#ifndef EMU_DEVICERTL_FLANG_H
#define EMU_DEVICERTL_FLANG_H

#include <ffi.h>
#include <stdint.h>

#include "devicertl.h"

/* Call ENTRY through CIF with the argument values AV as the emu device runs
 * a kernel: a GPU-style kernel (CTX->kernel_env set) as a league of teams,
 * any other directly.  CTX is the thread's device context already. */
void devicertl_call_kernel(ffi_cif *cif, void *entry, void **av,
                           struct emu_devctx *ctx);

/* libomp's entry points, found in the process on first use.  A missing
 * one is reported and aborts: flang images NEED libomp, so the loader has
 * loaded it before any of their code runs. */
struct flang_omp {
  int32_t (*gtid)(void *loc);
  void (*fork_call)(void *loc, int32_t argc, void *microtask, ...);
  void (*fork_teams)(void *loc, int32_t argc, void *microtask, ...);
  void (*push_num_teams)(void *loc, int32_t gtid, int32_t nteams,
                         int32_t nthreads);
  void (*push_num_threads)(void *loc, int32_t gtid, int32_t nthreads);
  void (*serialized_parallel)(void *loc, int32_t gtid);
  void (*end_serialized_parallel)(void *loc, int32_t gtid);
  void (*barrier)(void *loc, int32_t gtid);
  void (*critical)(void *loc, int32_t gtid, void *lock);
  void (*end_critical)(void *loc, int32_t gtid, void *lock);
  int (*level)(void);
  int (*thread_num)(void);
  int (*num_threads)(void);
  int (*team_num)(void);
  int (*num_teams)(void);
  int (*max_teams)(void);
  int (*max_threads)(void);
  int (*thread_limit)(void);
  int (*num_procs)(void);
};
const struct flang_omp *flang_omp(void);

/* The ident_t the device runtime passes to libomp for its own calls. */
extern struct ident_t flang_loc;

/* Threads of the calling thread's team: 1 outside any parallel region
 * (the teams level, where libomp 14 answers its league's thread limit),
 * else libomp's team size. */
int flang_team_threads(void);

/* The calling thread's team and the league's size (flang_team, else
 * libomp's answer). */
int flang_team_num(void);
int flang_num_teams(void);

/* What the threads of a team know about the kernel they run: set on the
 * team's initial thread for the kernel's duration, and on the threads of
 * its parallel regions for theirs (__kmpc_parallel_60); NULL elsewhere.
 * libomp knows the team too, except in a serialized parallel region at the
 * teams level, where libomp 14 and 19 answer team 0. */
struct flang_team {
  int32_t thread_limit; /* threads per team at most, 0 = no limit */
  int32_t team_num;     /* the team, and the league's size */
  int32_t num_teams;
};
const struct flang_team *flang_current_team(void);
/* Make TEAM the calling thread's (NULL: none); the previous one back. */
const struct flang_team *flang_set_team(const struct flang_team *team);

/* The loop functions, for devicertl_flang_lookup (devicertl_loops.c):
 * the address of the static loop function NAME, NULL if NAME is none. */
void *flang_loop_lookup(const char *name);

#endif
