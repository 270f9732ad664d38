/* The static loops of flang 22's kernels (devicertl_flang.h): each calling
 * thread runs its share of a normalised iteration space [0, N), calling
 * BODY(iv, ARG) for each of its iterations in increasing order.
 *
 * The prototypes, from flang's device IR and LLVM's GPU device runtime
 * (docs/abi-clang22.md section 7.2), for TY = int32, uint32, int64, uint64
 * (suffixes _4, _4u, _8, _8u):
 *   __kmpc_for_static_loop(loc, body, arg, TY n, TY nthreads, TY chunk, u8)
 *   __kmpc_distribute_static_loop(loc, body, arg, TY n, TY block_chunk, u8)
 *   __kmpc_distribute_for_static_loop(loc, body, arg, TY n, TY nthreads,
 *                                     TY block_chunk, TY chunk, u8)
 * where body is void (TY iv, void *arg).  A chunk of 0 means none given;
 * flang 22 passes 0 for both whatever the schedule and dist_schedule
 * clauses say.  The last argument is a hint that every thread has at most
 * one iteration; it changes nothing here.
 *
 * The split, as OpenMP's static schedules define it:
 *   - distribute: the teams are the league's (flang_team_num).
 *     No block chunk: each team gets one contiguous block, the blocks
 *     differing by at most one iteration.  A block chunk C: chunks of C
 *     dealt to the teams round robin;
 *   - for, and the threads' part of distribute for: the same over the
 *     team's iterations (its block, or each of its chunks) and the threads
 *     of the team: one block each, or chunks of C round robin.
 * The thread count is the team's (libomp's, 1 outside a parallel region):
 * with the caller's count, a count larger than the team would leave
 * iterations to threads that do not exist. */
#include "config.h"
#include "devicertl_flang.h"
#include "trace.h"

#include <stdint.h>
#include <string.h>

/* One loop as called, widened to 64 bits. */
struct loop {
  const char *what; /* for traces */
  void *body;
  void *arg;
  int wide; /* BODY takes a 64-bit iv */
  uint64_t n;
};

/* The chunks of [LO, HI) that part K of PARTS gets: one block (CHUNK 0),
 * the first (HI-LO) % PARTS blocks one iteration longer, or the chunks of
 * CHUNK iterations numbered K, K+PARTS, K+2*PARTS, ... */
struct chunks {
  uint64_t next, hi, chunk, stride;
  int done;
};

static void chunks_start(struct chunks *c, uint64_t lo, uint64_t hi,
                         uint64_t parts, uint64_t k, uint64_t chunk) {
  c->hi = hi;
  c->done = lo >= hi || k >= parts;
  if (c->done)
    return;
  uint64_t n = hi - lo;
  if (!chunk) {
    uint64_t q = n / parts, r = n % parts;
    c->next = lo + k * q + (k < r ? k : r);
    c->chunk = q + (k < r);
    c->stride = UINT64_MAX; /* one block */
    c->done = c->chunk == 0;
    return;
  }
  uint64_t off;
  if (__builtin_mul_overflow(k, chunk, &off) || off >= n) {
    c->done = 1;
    return;
  }
  c->next = lo + off;
  c->chunk = chunk;
  if (__builtin_mul_overflow(parts, chunk, &c->stride))
    c->stride = UINT64_MAX;
}

/* The next chunk [*LO, *HI): 1, or 0 when there is none left. */
static int chunks_next(struct chunks *c, uint64_t *lo, uint64_t *hi) {
  if (c->done)
    return 0;
  *lo = c->next;
  *hi = c->hi - c->next > c->chunk ? c->next + c->chunk : c->hi;
  if (c->stride >= c->hi - c->next)
    c->done = 1;
  else
    c->next += c->stride;
  return 1;
}

/* Run L's iterations [LO, HI); count them into *RAN (and the first into
 * *FIRST if it is the first). */
static void run_range(const struct loop *l, uint64_t lo, uint64_t hi,
                      uint64_t *ran, uint64_t *first) {
  if (lo >= hi)
    return;
  if (!*ran)
    *first = lo;
  *ran += hi - lo;
  if (l->wide) {
    void (*f)(uint64_t, void *) = (void (*)(uint64_t, void *))l->body;
    for (uint64_t i = lo; i < hi; i++)
      f(i, l->arg);
  } else {
    void (*f)(uint32_t, void *) = (void (*)(uint32_t, void *))l->body;
    for (uint64_t i = lo; i < hi; i++)
      f((uint32_t)i, l->arg);
  }
}

/* The calling thread's share of L: team TEAM of NTEAMS with block chunk
 * BCHUNK, then thread THR of NTHR with chunk TCHUNK in each team chunk. */
static void run_share(const struct loop *l, uint64_t nteams, uint64_t team,
                      uint64_t bchunk, uint64_t nthr, uint64_t thr,
                      uint64_t tchunk) {
  uint64_t ran = 0, first = 0, tlo, thi, lo, hi;
  struct chunks tc, pc;
  chunks_start(&tc, 0, l->n, nteams, team, bchunk);
  while (chunks_next(&tc, &tlo, &thi)) {
    chunks_start(&pc, tlo, thi, nthr, thr, tchunk);
    while (chunks_next(&pc, &lo, &hi))
      run_range(l, lo, hi, &ran, &first);
  }
  if (OMPEMU_TRACE_ON(3))
    ompemu_trace(3, "emu", "%s: team %lu/%lu thread %lu/%lu ran %lu of %lu "
                 "iterations from %lu (chunks %lu, %lu)", l->what,
                 (unsigned long)team, (unsigned long)nteams,
                 (unsigned long)thr, (unsigned long)nthr, (unsigned long)ran,
                 (unsigned long)l->n, (unsigned long)first,
                 (unsigned long)bchunk, (unsigned long)tchunk);
}

/* Team and thread coordinates of the caller, from libomp. */
static void teams_of_caller(uint64_t *nteams, uint64_t *team) {
  int n = flang_num_teams(), t = flang_team_num();
  *nteams = n > 0 ? (uint64_t)n : 1;
  *team = t > 0 ? (uint64_t)t : 0;
}

static void threads_of_caller(uint64_t *nthr, uint64_t *thr) {
  int n = flang_team_threads(), t = flang_omp()->thread_num();
  *nthr = n > 0 ? (uint64_t)n : 1;
  *thr = t > 0 ? (uint64_t)t : 0;
}

static void for_loop(struct loop *l, uint64_t tchunk) {
  uint64_t nthr, thr;
  threads_of_caller(&nthr, &thr);
  run_share(l, 1, 0, 0, nthr, thr, tchunk);
}

static void distribute_loop(struct loop *l, uint64_t bchunk) {
  uint64_t nteams, team;
  teams_of_caller(&nteams, &team);
  run_share(l, nteams, team, bchunk, 1, 0, 0);
}

static void distribute_for_loop(struct loop *l, uint64_t bchunk,
                                uint64_t tchunk) {
  uint64_t nteams, team, nthr, thr;
  teams_of_caller(&nteams, &team);
  threads_of_caller(&nthr, &thr);
  run_share(l, nteams, team, bchunk, nthr, thr, tchunk);
}

/* A count or chunk of a signed variant: 0 when not positive. */
#define POS(x) ((x) > 0 ? (uint64_t)(x) : 0)

#define STATIC_LOOPS(SUFFIX, TY, WIDE)                                         \
  static void for_static_loop##SUFFIX(void *loc, void *body, void *arg,        \
                                      TY n, TY nthreads, TY chunk,             \
                                      uint8_t one) {                           \
    (void)loc, (void)nthreads, (void)one;                                      \
    struct loop l = {"for_static_loop" #SUFFIX, body, arg, WIDE, POS(n)};      \
    for_loop(&l, POS(chunk));                                                  \
  }                                                                            \
  static void distribute_static_loop##SUFFIX(void *loc, void *body, void *arg, \
                                             TY n, TY bchunk, uint8_t one) {   \
    (void)loc, (void)one;                                                      \
    struct loop l = {"distribute_static_loop" #SUFFIX, body, arg, WIDE,        \
                     POS(n)};                                                  \
    distribute_loop(&l, POS(bchunk));                                          \
  }                                                                            \
  static void distribute_for_static_loop##SUFFIX(                              \
      void *loc, void *body, void *arg, TY n, TY nthreads, TY bchunk,          \
      TY tchunk, uint8_t one) {                                                \
    (void)loc, (void)nthreads, (void)one;                                      \
    struct loop l = {"distribute_for_static_loop" #SUFFIX, body, arg, WIDE,    \
                     POS(n)};                                                  \
    distribute_for_loop(&l, POS(bchunk), POS(tchunk));                         \
  }

STATIC_LOOPS(_4, int32_t, 0)
STATIC_LOOPS(_4u, uint32_t, 0)
STATIC_LOOPS(_8, int64_t, 1)
STATIC_LOOPS(_8u, uint64_t, 1)

#define LOOP_ENTRY(KIND, SUFFIX)                                               \
  {"__kmpc_" #KIND #SUFFIX, (void *)KIND##SUFFIX}
#define LOOP_ENTRIES(SUFFIX)                                                   \
  LOOP_ENTRY(for_static_loop, SUFFIX),                                         \
      LOOP_ENTRY(distribute_static_loop, SUFFIX),                              \
      LOOP_ENTRY(distribute_for_static_loop, SUFFIX)

static const struct {
  const char *name;
  void *fn;
} loops[] = {LOOP_ENTRIES(_4), LOOP_ENTRIES(_4u), LOOP_ENTRIES(_8),
             LOOP_ENTRIES(_8u)};

void *flang_loop_lookup(const char *name) {
  for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++)
    if (strcmp(loops[i].name, name) == 0)
      return loops[i].fn;
  return NULL;
}
