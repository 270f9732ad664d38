/* Shared helpers of the benchmark program (bench.c, bench_stress.c): a
 * clock, a median, and the one output format run.sh reads:
 * "figure value unit", one figure per line. */
#ifndef OMPEMU_BENCH_H
#define OMPEMU_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of the N values in V (sorts V). */
static inline double bench_median(double *v, int n) {
  qsort(v, n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline void bench_print(const char *figure, double value, const char *unit) {
  printf("%s %.3f %s\n", figure, value, unit);
  fflush(stdout);
}

/* Groups of figures: each is run in its own process by run.sh, so one
 * group's state (live mappings, threads) never slows another's. */
int group_launch(long scale);
int group_launch_busy(long scale);
int group_enter_exit(long scale);
int group_update(long scale);
int group_members(long scale);
int group_teams(long scale);
int group_threads8(long scale);
int group_bandwidth(long scale);
int group_stress(long scale);
int group_idle_cpu(long scale);

#endif
