/* Unit tests of the device runtime of flang's GPU-style kernels
 * (src/plugins/emu/devicertl_flang.h): C kernels of flang's shape (they
 * call __kmpc_target_init, __kmpc_parallel_60 and the static loops, looked
 * up as the loader binds them) launched through devicertl_call_kernel as
 * the emu device's workers launch them.  Checked: the league's shape from
 * the launch and the KernelEnvironment, every iteration run exactly once
 * with the static split across teams and threads (blocks and chunks, all
 * four index types), parallel regions (argument counts, if, num_threads,
 * the kernel's thread limit), reductions and barriers at the teams level
 * and in parallel regions, and the omp_* answers.
 *
 * libomp is opened at start-up (OMPEMU_TEST_LIBOMP, default libomp.so.5)
 * with RTLD_GLOBAL, as a flang image's NEEDED entry brings it: run the test
 * with OMPEMU_TEST_LIBOMP=/path/to/libomp 19 to check that one. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <ffi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devicertl.h"
#include "devicertl_flang.h"

/* ---- the device runtime as a flang image binds it ---- */

typedef int32_t (*target_init_fn)(const void *env, void *dyn);
typedef void (*target_deinit_fn)(void);
typedef void (*parallel_60_fn)(void *loc, int32_t gtid, int32_t if_expr,
                               int32_t nthreads, int32_t bind, void *fn,
                               void *wrapper, void **args, int64_t nargs,
                               int32_t strict);
typedef void (*dfor4u_fn)(void *loc, void *body, void *arg, uint32_t n,
                          uint32_t nthreads, uint32_t bchunk, uint32_t tchunk,
                          uint8_t one);
typedef int32_t (*reduce_fn)(void *loc, int32_t gtid, int32_t nvars,
                             size_t size, void *data, void *func, void *lock);
typedef void (*end_reduce_fn)(void *loc, int32_t gtid, void *lock);
typedef void (*barrier_fn)(void *loc, int32_t gtid);
typedef int (*omp_int_fn)(void);

static struct {
  target_init_fn target_init;
  target_deinit_fn target_deinit;
  parallel_60_fn parallel_60;
  dfor4u_fn dfor4u;
  reduce_fn reduce;
  end_reduce_fn end_reduce;
  barrier_fn barrier;
  omp_int_fn num_threads, team_num, num_teams, thread_num, level;
  int32_t (*gtid)(void *loc);
} rtl;

static void *lookup(const char *name) {
  void *p = devicertl_flang_lookup(name);
  if (!p)
    fail_msg("the flang device runtime has no %s", name);
  return p;
}

static void *omp_sym(const char *name) {
  void *p = dlsym(RTLD_DEFAULT, name);
  if (!p)
    fail_msg("libomp has no %s", name);
  return p;
}

/* A KernelEnvironment: exec mode, MaxThreads and MaxTeams as flang writes
 * them (docs/abi-clang22.md section 7.2). */
struct kenv {
  uint8_t generic_sm, nested, mode;
  int32_t min_threads, max_threads, min_teams, max_teams, rd, rl;
  void *ident, *dyn;
};

/* ---- launching a C kernel K(dyn_ptr, arg) as the workers do ---- */

static void launch(void (*kernel)(void *, void *), void *arg,
                   const struct kenv *env, int32_t teams, int32_t limit) {
  ffi_cif cif;
  ffi_type *types[2] = {&ffi_type_pointer, &ffi_type_pointer};
  assert_int_equal(ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 2, &ffi_type_void,
                                types),
                   FFI_OK);
  void *dyn = (void *)~(uintptr_t)0;
  void *av[2] = {&dyn, &arg};
  struct emu_devctx ctx = {0, NULL, teams, limit, 0, env};
  emu_set_ctx(&ctx);
  devicertl_call_kernel(&cif, (void *)kernel, av, &ctx);
  emu_set_ctx(NULL);
}

static struct kenv spmd(int32_t max_teams, int32_t max_threads) {
  return (struct kenv){0, 1, 2, 1, max_threads, max_teams, max_teams, 0, 0,
                       NULL, NULL};
}

/* ---- a kernel of `target teams distribute parallel do` ---- */

#define MAXN 4096
struct dpd {
  uint32_t n, bchunk, tchunk;
  int32_t num_threads; /* of the parallel region, -1: none */
  atomic_int hits[MAXN];
  int team[MAXN], thread[MAXN], nthreads[MAXN];
  atomic_int nteams_seen, init_calls, threads_seen;
  pthread_t worker;
  atomic_int on_worker;
};

static void dpd_body(uint32_t iv, void *arg) {
  struct dpd *d = arg;
  atomic_fetch_add(&d->hits[iv], 1);
  d->team[iv] = rtl.team_num();
  d->thread[iv] = rtl.thread_num();
  d->nthreads[iv] = rtl.num_threads();
}

static void dpd_region(int32_t *gtid, int32_t *btid, struct dpd *d) {
  (void)gtid, (void)btid;
  atomic_fetch_add(&d->threads_seen, 1);
  rtl.dfor4u(NULL, (void *)dpd_body, d, d->n, (uint32_t)rtl.num_threads(),
             d->bchunk, d->tchunk, 0);
}

static void dpd_kernel(void *dyn, void *arg) {
  struct dpd *d = arg;
  static struct kenv unused;
  atomic_fetch_add(&d->init_calls, 1);
  if (rtl.target_init(&unused, dyn) != -1)
    return;
  atomic_store(&d->nteams_seen, rtl.num_teams());
  if (pthread_equal(pthread_self(), d->worker))
    atomic_store(&d->on_worker, 1);
  void *args[1] = {d};
  rtl.parallel_60(NULL, rtl.gtid(NULL), 1, d->num_threads, -1,
                  (void *)dpd_region, NULL, args, 1, 0);
  rtl.target_deinit();
}

/* The iterations [LO, HI) that part K of PARTS gets of [0, N) with CHUNK
 * (0: one block each, sizes differing by at most one). */
static int owns(uint32_t i, uint32_t lo, uint32_t hi, uint32_t parts,
                uint32_t k, uint32_t chunk) {
  if (i < lo || i >= hi)
    return 0;
  uint32_t n = hi - lo, off = i - lo;
  if (!chunk) {
    uint32_t q = n / parts, r = n % parts;
    uint32_t b = k * q + (k < r ? k : r);
    return off >= b && off < b + q + (k < r);
  }
  return (off / chunk) % parts == k;
}

/* Check that D's iterations were each run once, by the team and thread the
 * static split gives them. */
static void check_split(struct dpd *d) {
  uint32_t nteams = (uint32_t)atomic_load(&d->nteams_seen);
  assert_true(nteams >= 1);
  for (uint32_t i = 0; i < d->n; i++) {
    if (atomic_load(&d->hits[i]) != 1)
      fail_msg("iteration %u ran %d times (n %u, chunks %u %u)", i,
               atomic_load(&d->hits[i]), d->n, d->bchunk, d->tchunk);
    uint32_t t = (uint32_t)d->team[i], p = (uint32_t)d->thread[i];
    uint32_t nthr = (uint32_t)d->nthreads[i];
    assert_true(t < nteams);
    assert_true(p < nthr);
    /* the team's part of [0, n) */
    uint32_t tlo = 0, thi = d->n;
    if (!d->bchunk) {
      uint32_t q = d->n / nteams, r = d->n % nteams;
      tlo = t * q + (t < r ? t : r);
      thi = tlo + q + (t < r);
    } else {
      tlo = i - i % d->bchunk;
      thi = tlo + d->bchunk < d->n ? tlo + d->bchunk : d->n;
      if ((i / d->bchunk) % nteams != t)
        fail_msg("iteration %u (block chunk %u) ran in team %u of %u", i,
                 d->bchunk, t, nteams);
    }
    if (!owns(i, tlo, thi, 1, 0, 0) || !owns(i, tlo, thi, nthr, p, d->tchunk))
      fail_msg("iteration %u ran in team %u/%u thread %u/%u (n %u, chunks "
               "%u %u)", i, t, nteams, p, nthr, d->n, d->bchunk, d->tchunk);
  }
}

static struct dpd *dpd_new(uint32_t n, uint32_t bchunk, uint32_t tchunk) {
  struct dpd *d = calloc(1, sizeof *d);
  assert_non_null(d);
  d->n = n;
  d->bchunk = bchunk;
  d->tchunk = tchunk;
  d->num_threads = -1;
  d->worker = pthread_self();
  return d;
}

static void test_split_league(void **state) {
  (void)state;
  static const uint32_t ns[] = {0, 1, 5, 1000, 1003};
  static const uint32_t chunks[][2] = {{0, 0}, {7, 0}, {0, 3}, {10, 4}};
  for (int32_t teams = 1; teams <= 4; teams++)
    for (size_t c = 0; c < 4; c++)
      for (size_t k = 0; k < 5; k++) {
        struct dpd *d = dpd_new(ns[k], chunks[c][0], chunks[c][1]);
        struct kenv env = spmd(0, 256);
        launch(dpd_kernel, d, &env, teams, 2);
        check_split(d);
        /* one initial thread per team, -1 for each */
        assert_int_equal(atomic_load(&d->init_calls),
                         atomic_load(&d->nteams_seen));
        assert_true(atomic_load(&d->nteams_seen) <= teams);
        /* the worker leads the league (team 0), or is the one team */
        assert_int_equal(atomic_load(&d->on_worker), 1);
        if (teams == 1)
          assert_int_equal(atomic_load(&d->nteams_seen), 1);
        else if (atomic_load(&d->nteams_seen) != teams)
          fail_msg("%d teams asked, %d formed (libomp's league limit)",
                   teams, atomic_load(&d->nteams_seen));
        free(d);
      }
}

/* No teams construct (MaxTeams -1): one team on the worker whatever the
 * context's placeholders say; its thread limit is the kernel's MaxThreads. */
static void test_no_teams_construct(void **state) {
  (void)state;
  struct dpd *d = dpd_new(100, 0, 0);
  struct kenv env = spmd(-1, 1);
  launch(dpd_kernel, d, &env, 4, 4);
  check_split(d);
  assert_int_equal(atomic_load(&d->nteams_seen), 1);
  assert_int_equal(atomic_load(&d->on_worker), 1);
  assert_int_equal(atomic_load(&d->threads_seen), 1); /* MaxThreads 1 */
  free(d);
  /* MaxTeams from the kernel when the launch has none */
  d = dpd_new(100, 0, 0);
  env = spmd(3, 256);
  launch(dpd_kernel, d, &env, 0, 0);
  check_split(d);
  assert_int_equal(atomic_load(&d->nteams_seen), 3);
  free(d);
}

/* num_threads and the launch's thread limit bound a region's threads. */
static void test_thread_limits(void **state) {
  (void)state;
  struct dpd *d = dpd_new(64, 0, 0);
  d->num_threads = 3;
  struct kenv env = spmd(-1, 256);
  launch(dpd_kernel, d, &env, 1, 1);
  check_split(d);
  int n = atomic_load(&d->threads_seen);
  assert_true(n >= 1 && n <= 3);
  free(d);
  d = dpd_new(64, 0, 0);
  d->num_threads = 8;
  env = spmd(-1, 2); /* thread_limit(2) */
  launch(dpd_kernel, d, &env, 1, 1);
  check_split(d);
  n = atomic_load(&d->threads_seen);
  assert_true(n >= 1 && n <= 2);
  free(d);
}

/* A plain kernel (no KernelEnvironment) is called once, directly. */
static void plain_kernel(void *dyn, void *arg) {
  assert_ptr_equal(dyn, (void *)~(uintptr_t)0);
  atomic_fetch_add((atomic_int *)arg, 1);
}

static void test_plain_kernel(void **state) {
  (void)state;
  atomic_int calls = 0;
  launch(plain_kernel, &calls, NULL, 4, 4);
  assert_int_equal(atomic_load(&calls), 1);
}

/* ---- parallel regions: argument counts and if(false) ---- */

struct region_probe {
  atomic_int calls;
  atomic_int level_sum;
  void *seen[5];
};

static void region5(int32_t *gtid, int32_t *btid, struct region_probe *p,
                    void *a, void *b, void *c, void *e) {
  assert_non_null(gtid);
  assert_non_null(btid);
  atomic_fetch_add(&p->calls, 1);
  atomic_fetch_add(&p->level_sum, rtl.level());
  p->seen[0] = p;
  p->seen[1] = a;
  p->seen[2] = b;
  p->seen[3] = c;
  p->seen[4] = e;
}

static void region0(int32_t *gtid, int32_t *btid) {
  (void)gtid, (void)btid;
}

static void test_parallel_regions(void **state) {
  (void)state;
  struct region_probe p = {0};
  void *args[5] = {&p, (void *)1, (void *)2, (void *)3, (void *)4};
  int32_t g = rtl.gtid(NULL);
  /* five arguments: through libffi; serialized, one thread at level 1 */
  rtl.parallel_60(NULL, g, 0, -1, -1, (void *)region5, NULL, args, 5, 0);
  assert_int_equal(atomic_load(&p.calls), 1);
  assert_int_equal(atomic_load(&p.level_sum), 1);
  for (int i = 0; i < 5; i++)
    assert_ptr_equal(p.seen[i], args[i]);
  /* forked, two threads asked */
  atomic_store(&p.calls, 0);
  rtl.parallel_60(NULL, g, 1, 2, -1, (void *)region5, NULL, args, 5, 0);
  assert_true(atomic_load(&p.calls) >= 1 && atomic_load(&p.calls) <= 2);
  assert_ptr_equal(p.seen[4], args[4]);
  rtl.parallel_60(NULL, g, 1, -1, -1, (void *)region0, NULL, NULL, 0, 0);
}

/* ---- reductions and barriers ---- */

static int64_t red_total;
static char red_lock[32]; /* a kmp_critical_name, as flang emits it */

struct red {
  int rounds;
  atomic_int barrier_calls;
};

static void red_region(int32_t *gtid, int32_t *btid, struct red *r) {
  (void)btid;
  for (int k = 0; k < r->rounds; k++) {
    int64_t mine = 1;
    int32_t how = rtl.reduce(NULL, *gtid, 1, 8, &mine, NULL, red_lock);
    assert_int_equal(how, 1); /* never the atomic method (2) */
    red_total += mine;
    rtl.end_reduce(NULL, *gtid, red_lock);
    rtl.barrier(NULL, *gtid);
  }
}

static void red_kernel(void *dyn, void *arg) {
  struct red *r = arg;
  static struct kenv unused;
  if (rtl.target_init(&unused, dyn) != -1)
    return;
  int32_t g = rtl.gtid(NULL);
  /* at the teams level: a combine per team, and a barrier that must not
   * wait for threads that are not there */
  int64_t mine = 1000;
  assert_int_equal(rtl.reduce(NULL, g, 1, 8, &mine, NULL, red_lock), 1);
  red_total += mine;
  rtl.end_reduce(NULL, g, red_lock);
  rtl.barrier(NULL, g);
  assert_int_equal(rtl.num_threads(), 1);
  void *args[1] = {r};
  rtl.parallel_60(NULL, g, 1, 2, -1, (void *)red_region, NULL, args, 1, 0);
}

/* Threads of the parallel regions of all teams, counted by a region. */
static atomic_int region_threads;
static void count_region(int32_t *gtid, int32_t *btid) {
  (void)gtid, (void)btid;
  atomic_fetch_add(&region_threads, 1);
}
static void count_kernel(void *dyn, void *arg) {
  (void)arg;
  static struct kenv unused;
  if (rtl.target_init(&unused, dyn) != -1)
    return;
  rtl.parallel_60(NULL, rtl.gtid(NULL), 1, 2, -1, (void *)count_region, NULL,
                  NULL, 0, 0);
}

static void test_reductions(void **state) {
  (void)state;
  for (int32_t teams = 1; teams <= 3; teams++) {
    struct red r = {50, 0};
    struct kenv env = spmd(0, 256);
    red_total = 0;
    atomic_store(&region_threads, 0);
    launch(count_kernel, NULL, &env, teams, 2);
    int threads = atomic_load(&region_threads);
    launch(red_kernel, &r, &env, teams, 2);
    /* 1000 per team, 1 per thread per round */
    assert_true(threads >= 1);
    int64_t teams_part = red_total - (int64_t)r.rounds * threads;
    if (teams_part % 1000 != 0 || teams_part / 1000 < 1 ||
        teams_part / 1000 > teams)
      fail_msg("reduction over %d teams: total %ld (%d threads in regions)",
               teams, (long)red_total, threads);
  }
}

/* omp_get_team_num in a serialized parallel region at the teams level is
 * the team's (libomp answers 0 there). */
struct serial_team {
  atomic_int seen[8];
  atomic_int mismatches;
};

static void serial_region(int32_t *gtid, int32_t *btid, struct serial_team *s,
                          void *team) {
  (void)gtid, (void)btid;
  if (rtl.team_num() != (int)(intptr_t)team)
    atomic_fetch_add(&s->mismatches, 1);
  atomic_fetch_add(&s->seen[rtl.team_num() & 7], 1);
}

static void serial_kernel(void *dyn, void *arg) {
  static struct kenv unused;
  if (rtl.target_init(&unused, dyn) != -1)
    return;
  void *args[2] = {arg, (void *)(intptr_t)rtl.team_num()};
  rtl.parallel_60(NULL, rtl.gtid(NULL), 0, -1, -1, (void *)serial_region,
                  NULL, args, 2, 0);
}

static void test_team_in_serialized_region(void **state) {
  (void)state;
  struct serial_team s = {0};
  struct kenv env = spmd(0, 256);
  launch(serial_kernel, &s, &env, 2, 1);
  assert_int_equal(atomic_load(&s.mismatches), 0);
  int total = 0;
  for (int t = 0; t < 8; t++) {
    assert_true(atomic_load(&s.seen[t]) <= 1);
    total += atomic_load(&s.seen[t]);
  }
  assert_true(total >= 1 && total <= 2);
}

/* ---- the index types ---- */

static uint64_t wide_sum;
static int64_t signed_count;
static void wide_body(uint64_t iv, void *arg) {
  (void)arg;
  wide_sum += iv;
}
static void count_body(int32_t iv, void *arg) {
  (void)arg, (void)iv;
  signed_count++;
}

static void test_index_types(void **state) {
  (void)state;
  /* 64-bit ivs reach the body whole */
  void (*for8u)(void *, void *, void *, uint64_t, uint64_t, uint64_t,
                uint8_t) = lookup("__kmpc_for_static_loop_8u");
  wide_sum = 0;
  for8u(NULL, (void *)wide_body, NULL, 1000, 1, 0, 0);
  assert_int_equal(wide_sum, 999 * 1000 / 2);
  /* signed counts and chunks: a negative count runs nothing */
  void (*dist4)(void *, void *, void *, int32_t, int32_t, uint8_t) =
      lookup("__kmpc_distribute_static_loop_4");
  signed_count = 0;
  dist4(NULL, (void *)count_body, NULL, -5, -3, 0);
  assert_int_equal(signed_count, 0);
  dist4(NULL, (void *)count_body, NULL, 17, -3, 0);
  assert_int_equal(signed_count, 17);
  void (*dfor8)(void *, void *, void *, int64_t, int64_t, int64_t, int64_t,
                uint8_t) = lookup("__kmpc_distribute_for_static_loop_8");
  wide_sum = 0;
  dfor8(NULL, (void *)wide_body, NULL, 50, 4, 3, 2, 1);
  assert_int_equal(wide_sum, 49 * 50 / 2);
  /* every variant is there, nothing else */
  static const char *kinds[] = {"for_static_loop", "distribute_static_loop",
                                "distribute_for_static_loop"};
  static const char *types[] = {"_4", "_4u", "_8", "_8u"};
  char name[64];
  for (int k = 0; k < 3; k++)
    for (int t = 0; t < 4; t++) {
      snprintf(name, sizeof name, "__kmpc_%s%s", kinds[k], types[t]);
      assert_non_null(devicertl_flang_lookup(name));
    }
  assert_null(devicertl_flang_lookup("__kmpc_for_static_loop_2"));
  assert_null(devicertl_flang_lookup("printf"));
  assert_null(devicertl_flang_lookup(NULL));
  assert_null(devicertl_lookup("__kmpc_target_init")); /* flang images only */
}

static int setup(void **state) {
  (void)state;
  rtl.target_init = (target_init_fn)lookup("__kmpc_target_init");
  rtl.target_deinit = (target_deinit_fn)lookup("__kmpc_target_deinit");
  rtl.parallel_60 = (parallel_60_fn)lookup("__kmpc_parallel_60");
  rtl.dfor4u = (dfor4u_fn)lookup("__kmpc_distribute_for_static_loop_4u");
  rtl.reduce = (reduce_fn)lookup("__kmpc_reduce");
  rtl.end_reduce = (end_reduce_fn)lookup("__kmpc_end_reduce");
  rtl.barrier = (barrier_fn)lookup("__kmpc_barrier");
  rtl.num_threads = (omp_int_fn)lookup("omp_get_num_threads");
  rtl.team_num = (omp_int_fn)lookup("omp_get_team_num");
  rtl.num_teams = (omp_int_fn)lookup("omp_get_num_teams");
  rtl.thread_num = (omp_int_fn)omp_sym("omp_get_thread_num");
  rtl.level = (omp_int_fn)omp_sym("omp_get_level");
  rtl.gtid = (int32_t(*)(void *))omp_sym("__kmpc_global_thread_num");
  return 0;
}

#if defined(__SANITIZE_ADDRESS__)
/* An --enable-sanitizers build: with libomp dlopen'ed, gcc 12's
 * LeakSanitizer tracks a bogus dynamic TLS range of libomp's threads
 * through __tls_get_addr and crashes reading it at exit ("Tracer caught
 * signal 11", verbosity=1 shows "DTLS 7 at 0x000100000039-...").  Blocks
 * of dynamic TLS are glibc's malloc'ed chunks, still scanned as such. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "intercept_tls_get_addr=0"; }
#endif

int main(void) {
  /* Idle threads sleep at once (this machine may have 2 processors).
   * KMP_TEAMS_THREAD_LIMIT stays unset: the device runtime raises libomp's
   * league limit (the processor count) for 3 and 4 teams itself. */
  setenv("KMP_BLOCKTIME", "0", 0);
  const char *path = getenv("OMPEMU_TEST_LIBOMP");
  if (!path || !*path)
    path = "libomp.so.5";
  if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL)) {
    printf("1..0 # SKIP cannot open libomp (%s): %s\n", path, dlerror());
    return 0;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_index_types),
      cmocka_unit_test(test_plain_kernel),
      cmocka_unit_test(test_split_league),
      cmocka_unit_test(test_no_teams_construct),
      cmocka_unit_test(test_thread_limits),
      cmocka_unit_test(test_parallel_regions),
      cmocka_unit_test(test_reductions),
      cmocka_unit_test(test_team_in_serialized_region),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
