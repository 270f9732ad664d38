/* ompemu benchmark program: compiled once by clang 14 and run under LLVM
 * 14's runtime and under ompemu's, so both are measured on the same binary.
 * `bench GROUP [SCALE]` runs one group of figures and prints one line per
 * figure, "name value unit" (bench.h); run.sh runs each group several
 * times, alternating the two runtimes, and takes the median.  Each figure
 * printed here is itself the median of several repetitions in the
 * process.  The stress and idle-CPU groups are in bench_stress.c. */
#include "bench.h"

#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define REPS 7

/* Median over REPS runs of ITERS calls of OP: ns per call. */
static void measure(const char *name, long iters, void (*op)(long)) {
  double t[REPS];
  for (int r = 0; r < REPS; r++) {
    double t0 = bench_now();
    for (long i = 0; i < iters; i++)
      op(i);
    t[r] = (bench_now() - t0) / (double)iters;
  }
  bench_print(name, bench_median(t, REPS) * 1e9, "ns");
}

static char buf[4096];

static void op_empty(long i) {
  (void)i;
#pragma omp target
  {}
}

static void op_map4k(long i) {
  (void)i;
#pragma omp target map(tofrom: buf)
  buf[0]++;
}

static void launch_rows(long scale, const char *suffix) {
  char name[64];
  snprintf(name, sizeof name, "launch_empty%s", suffix);
  measure(name, 2000 * scale, op_empty);
  snprintf(name, sizeof name, "launch_4KiB_tofrom%s", suffix);
  measure(name, 2000 * scale, op_map4k);
}

/* The same 4 KiB through a global pointer (or a struct's member): the
 * pointer's own mapping, the section's, and the pointer attached to it
 * on the device and detached again.  A local pointer's section (the usual
 * malloc'd array) attaches nothing and costs what the static array does. */
static char *section;

static void op_section4k(long i) {
  (void)i;
#pragma omp target map(tofrom: section[0:4096])
  section[0]++;
}

/* A struct and the array its member points to, in one map clause: the
 * struct's copy, the array's, and the member attached to the array's copy
 * on the device (and the host pointer written back at the end). */
static struct {
  long n;
  double *p;
} holder;

static void op_attach(long i) {
  (void)i;
#pragma omp target map(tofrom: holder, holder.p[0:512])
  holder.p[0] += (double)holder.n;
}

int group_launch(long scale) {
  launch_rows(scale, "");
  if (!(section = calloc(4096, 1)))
    return 1;
  measure("launch_4KiB_section", 2000 * scale, op_section4k);
  free(section);
  holder.n = 1;
  if (!(holder.p = calloc(512, sizeof *holder.p)))
    return 1;
  measure("launch_struct_attach", 2000 * scale, op_attach);
  int bad = holder.p[0] != (double)(2000 * scale * REPS);
  free(holder.p);
  if (bad)
    fprintf(stderr, "bench: the attached array came back wrong\n");
  return bad;
}

/* A combined construct over 1M floats (4 MiB tofrom): the device's teams
 * and threads doing real work, and the copies around it. */
enum { TEAMS_N = 1 << 20 };
static float *teams_data;

static void op_teams(long i) {
  (void)i;
  float *a = teams_data;
#pragma omp target teams distribute parallel for map(tofrom: a[0:TEAMS_N])
  for (int j = 0; j < TEAMS_N; j++)
    a[j] = a[j] * 0.5f + 1.0f;
}

int group_teams(long scale) {
  if (!(teams_data = calloc(TEAMS_N, sizeof *teams_data)))
    return 1;
  measure("teams_1M_floats", 20 * scale, op_teams);
  /* x -> x/2 + 1 from 0 converges to 2. */
  int bad = teams_data[0] < 1.9f || teams_data[TEAMS_N - 1] < 1.9f;
  free(teams_data);
  if (bad)
    fprintf(stderr, "bench: the teams loop computed wrong values\n");
  return bad;
}

/* The launch rows again with one host thread spinning: on a 2-core
 * machine the launching thread and any device thread then share the
 * other core, which is where hand-offs between threads cost most. */
static atomic_int spin_stop;
static void *spinner(void *arg) {
  (void)arg;
  volatile unsigned long n = 0;
  while (!atomic_load_explicit(&spin_stop, memory_order_relaxed))
    n++;
  return NULL;
}

int group_launch_busy(long scale) {
  pthread_t th;
  atomic_store(&spin_stop, 0);
  if (pthread_create(&th, NULL, spinner, NULL) != 0)
    return 1;
  launch_rows(scale, "_1core_busy");
  atomic_store(&spin_stop, 1);
  pthread_join(th, NULL);
  return 0;
}

/* Enter data of N distinct 64-byte buffers, then exit data of all of them
 * in a shuffled order: ns per enter+exit pair with up to N live. */
static void enter_exit_rows(long n, int rounds) {
  enum { STRIDE = 16, LEN = 8 }; /* doubles: 64-byte buffers, 64-byte gaps */
  double *pool = calloc((size_t)n * STRIDE, sizeof *pool);
  long *order = malloc(n * sizeof *order);
  double *t = malloc(rounds * sizeof *t);
  if (!pool || !order || !t) {
    fprintf(stderr, "bench: out of memory\n");
    exit(1);
  }
  for (long i = 0; i < n; i++)
    order[i] = i;
  uint64_t rng = 88172645463325252ull;
  for (long i = n - 1; i > 0; i--) { /* Fisher-Yates, fixed seed */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    long j = (long)(rng % (uint64_t)(i + 1)), k = order[i];
    order[i] = order[j], order[j] = k;
  }
  for (int r = 0; r < rounds; r++) {
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
      double *p = pool + i * STRIDE;
#pragma omp target enter data map(to: p[0:LEN])
    }
    for (long i = 0; i < n; i++) {
      double *p = pool + order[i] * STRIDE;
#pragma omp target exit data map(release: p[0:LEN])
    }
    t[r] = (bench_now() - t0) / (double)n;
  }
  char name[64];
  snprintf(name, sizeof name, "enter_exit_pair_%ld_live", n);
  bench_print(name, bench_median(t, rounds) * 1e9, "ns");
  free(t);
  free(order);
  free(pool);
}

int group_enter_exit(long scale) {
  enter_exit_rows(100, 101 * (int)scale);
  enter_exit_rows(10000, 5 * (int)scale);
  enter_exit_rows(100000, (int)scale);
  return 0;
}

enum { LIVE_MAX = 100000 };
static double cells[LIVE_MAX][4];
static long live;

static void op_update(long i) {
  long k = i * 7919 % live;
#pragma omp target update to(cells[k][0:4])
}

/* target update of one small mapping among LIVE live ones. */
int group_update(long scale) {
  static const long sizes[] = {20000, LIVE_MAX};
  long mapped = 0;
  for (int s = 0; s < 2; s++) {
    for (; mapped < sizes[s]; mapped++) {
#pragma omp target enter data map(to: cells[mapped][0:4])
    }
    live = mapped;
    char name[64];
    snprintf(name, sizeof name, "update_%ld_live", live);
    measure(name, 5000 * scale, op_update);
  }
  for (long i = 0; i < mapped; i++) {
#pragma omp target exit data map(release: cells[i][0:4])
  }
  return 0;
}

/* One construct with many entries: an array of structs whose pointer
 * member a mapper maps and attaches (two entries per element, as flang's
 * implicit mapper of an array of derived types makes), entered and exited
 * whole; ns per element of an enter+exit. */
struct elem {
  int n;
  double *v;
};
#pragma omp declare mapper(struct elem e) map(e, e.v[0:e.n])

static struct elem *elems;
static double *elem_data;
static long nelems;

static void op_members(long i) {
  (void)i;
#pragma omp target enter data map(to: elems[0:nelems])
#pragma omp target exit data map(from: elems[0:nelems])
}

int group_members(long scale) {
  static const long sizes[] = {1000, 16000};
  elems = calloc(16000, sizeof *elems);
  elem_data = calloc(16000 * 2, sizeof *elem_data);
  if (!elems || !elem_data)
    return 1;
  for (long i = 0; i < 16000; i++) {
    elems[i].n = 2;
    elems[i].v = elem_data + 2 * i;
  }
  for (int s = 0; s < 2; s++) {
    nelems = sizes[s];
    long reps = 16000 / nelems * 2 * scale;
    double t[7];
    for (int r = 0; r < 7; r++) {
      double t0 = bench_now();
      for (long k = 0; k < reps; k++)
        op_members(k);
      t[r] = (bench_now() - t0) / (double)(reps * nelems);
    }
    char name[64];
    snprintf(name, sizeof name, "members_%ld", nelems);
    bench_print(name, bench_median(t, 7) * 1e9, "ns");
  }
  free(elems);
  free(elem_data);
  return 0;
}

static void *launcher(void *arg) {
  long n = (long)(intptr_t)arg;
  int v = 0;
  for (long i = 0; i < n; i++) {
#pragma omp target map(tofrom: v)
    v++;
  }
  return (void *)(intptr_t)(v != n);
}

/* 8 host threads (plain pthreads, outside any OpenMP parallel region)
 * launching concurrently, then 8 threads of an OpenMP parallel region:
 * wall time per launch, median of 5 runs each. */
int group_threads8(long scale) {
  enum { THREADS = 8, RUNS = 5 };
  long per = 500 * scale;
  pthread_t th[THREADS];
  int bad = 0;
  double t[RUNS];
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
    for (int i = 0; i < THREADS; i++)
      pthread_create(&th[i], NULL, launcher, (void *)(intptr_t)per);
    for (int i = 0; i < THREADS; i++) {
      void *ret;
      pthread_join(th[i], &ret);
      bad |= ret != NULL;
    }
    t[r] = (bench_now() - t0) / (THREADS * per);
  }
  bench_print("launch_8_threads", bench_median(t, RUNS) * 1e9, "ns");
  /* The same from the 8 threads of a host parallel region, 1 KiB tofrom
   * each: the image also has kernels that call into libomp (the stress
   * group's), as real programs do. */
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
#pragma omp parallel num_threads(THREADS) reduction(| : bad)
    {
      int row[256] = {0};
      for (long i = 0; i < per; i++) {
#pragma omp target map(tofrom: row)
        row[i % 256]++;
      }
      long sum = 0;
      for (int k = 0; k < 256; k++)
        sum += row[k];
      bad |= sum != per;
    }
    t[r] = (bench_now() - t0) / (THREADS * per);
  }
  bench_print("launch_8_omp_threads", bench_median(t, RUNS) * 1e9, "ns");
  if (bad)
    fprintf(stderr, "bench: concurrent launches computed wrong values\n");
  return bad;
}

/* 256 MiB round trip (enter data to + exit data from) against two plain
 * memcpy of 256 MiB between already touched buffers, in the same process:
 * GB/s counting both directions, and the round trip as a fraction of
 * the memcpy run just after it; medians of 3. */
int group_bandwidth(long scale) {
  (void)scale;
  enum { RUNS = 3 };
  size_t big = (size_t)256 << 20;
  char *h = malloc(big), *h2 = malloc(big);
  if (!h || !h2) {
    fprintf(stderr, "bench: out of memory\n");
    return 1;
  }
  memset(h, 1, big);
  memset(h2, 2, big);
  double rt[RUNS], mc[RUNS], frac[RUNS];
  for (int r = 0; r < RUNS; r++) {
    double t0 = bench_now();
#pragma omp target enter data map(to: h[0:big])
#pragma omp target exit data map(from: h[0:big])
    rt[r] = 2.0 * big / (bench_now() - t0) / 1e9;
    t0 = bench_now();
    memcpy(h2, h, big);
    __asm__ volatile("" ::: "memory");
    memcpy(h, h2, big);
    __asm__ volatile("" ::: "memory");
    mc[r] = 2.0 * big / (bench_now() - t0) / 1e9;
    frac[r] = rt[r] / mc[r];
  }
  long sum = 0;
  for (size_t i = 0; i < big; i += 4096)
    sum += h[i] + h2[i];
  free(h);
  free(h2);
  if (sum != 2 * (long)(big / 4096)) {
    fprintf(stderr, "bench: round trip corrupted data\n");
    return 1;
  }
  bench_print("roundtrip_256MiB", bench_median(rt, RUNS), "GB/s");
  bench_print("memcpy_256MiB", bench_median(mc, RUNS), "GB/s");
  bench_print("roundtrip_over_memcpy", bench_median(frac, RUNS), "x");
  return 0;
}

static const struct {
  const char *name;
  int (*run)(long scale);
} groups[] = {
    {"launch", group_launch},       {"launch_busy", group_launch_busy},
    {"enter_exit", group_enter_exit}, {"update", group_update},
    {"members", group_members},     {"teams", group_teams},
    {"threads8", group_threads8},   {"bandwidth", group_bandwidth},
    {"stress", group_stress},       {"idle_cpu", group_idle_cpu},
};

int main(int argc, char **argv) {
  long scale = argc > 2 ? atol(argv[2]) : 1;
  if (argc < 2 || scale < 1) {
    fprintf(stderr, "usage: bench GROUP [SCALE]\n");
    return 2;
  }
  /* Warm up: device init and image load are not measured. */
#pragma omp target
  {}
  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
    if (strcmp(argv[1], groups[g].name) == 0)
      return groups[g].run(scale);
  fprintf(stderr, "bench: unknown group '%s'\n", argv[1]);
  return 2;
}
