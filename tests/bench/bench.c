/* ompemu benchmark program: compiled once by clang 14 and run under LLVM
 * 14's runtime and under ompemu's, so both are measured on the same binary.
 * Prints one line per figure: "name value unit". */
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Best of REPS runs of ITERS calls of OP: ns per call. */
static void measure(const char *name, long iters, int reps, void (*op)(long)) {
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    for (long i = 0; i < iters; i++)
      op(i);
    double t = (now() - t0) / (double)iters;
    if (t < best)
      best = t;
  }
  printf("%s %.1f ns\n", name, best * 1e9);
  fflush(stdout);
}

static char buf[4096];
static double a[512];
enum { LIVE = 20000 };
static double cells[LIVE][4];

static void op_empty(long i) {
#pragma omp target
  {}
}

static void op_map4k(long i) {
#pragma omp target map(tofrom: buf)
  buf[0]++;
}

static void op_enter_exit(long i) {
#pragma omp target enter data map(to: a)
#pragma omp target exit data map(release: a)
}

static void op_update(long i) {
  int k = (int)(i * 7919 % LIVE);
#pragma omp target update to(cells[k][0:4])
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

int main(int argc, char **argv) {
  long scale = argc > 1 ? atol(argv[1]) : 1;
  /* Warm up: device init and image load are not measured. */
#pragma omp target
  {}

  measure("launch_empty", 2000 * scale, 5, op_empty);
  measure("launch_map_4k_tofrom", 2000 * scale, 5, op_map4k);
  measure("enter_exit_pair", 5000 * scale, 5, op_enter_exit);

  /* target update with 20 000 live mappings. */
  for (int i = 0; i < LIVE; i++) {
#pragma omp target enter data map(to: cells[i][0:4])
  }
  measure("update_20000_live", 5000 * scale, 5, op_update);
  for (int i = 0; i < LIVE; i++) {
#pragma omp target exit data map(release: cells[i][0:4])
  }

  /* 256 MiB round trip vs plain memcpy (GB/s, higher is better). */
  size_t big = (size_t)256 << 20;
  char *h = malloc(big), *h2 = malloc(big);
  memset(h, 1, big);
  memset(h2, 2, big);
  double best_rt = 1e30, best_mc = 1e30;
  for (int r = 0; r < 3; r++) {
    double t0 = now();
#pragma omp target enter data map(to: h[0:big])
#pragma omp target exit data map(from: h[0:big])
    double t = now() - t0;
    if (t < best_rt)
      best_rt = t;
    t0 = now();
    memcpy(h2, h, big);
    __asm__ volatile("" ::: "memory");
    memcpy(h, h2, big);
    __asm__ volatile("" ::: "memory");
    t = now() - t0;
    if (t < best_mc)
      best_mc = t;
  }
  long sum = 0;
  for (size_t i = 0; i < big; i += 4096)
    sum += h[i] + h2[i];
  if (sum != 2 * (long)(big / 4096))
    fprintf(stderr, "bench: round trip corrupted data\n");
  printf("roundtrip_256MiB %.2f GB/s\n", 2.0 * big / best_rt / 1e9);
  printf("memcpy_256MiB %.2f GB/s\n", 2.0 * big / best_mc / 1e9);
  free(h);
  free(h2);

  /* 8 host threads launching concurrently: ns per launch overall, best
   * of 3 runs like the other time rows (one run is at the mercy of how
   * the scheduler happens to place 8 threads on few cores). */
  enum { THREADS = 8 };
  long per = 500 * scale;
  pthread_t th[THREADS];
  int bad = 0;
  double best8 = 1e30;
  for (int r = 0; r < 3; r++) {
    double t0 = now();
    for (int t = 0; t < THREADS; t++)
      pthread_create(&th[t], NULL, launcher, (void *)(intptr_t)per);
    for (int t = 0; t < THREADS; t++) {
      void *ret;
      pthread_join(th[t], &ret);
      bad |= ret != NULL;
    }
    double t = (now() - t0) / (THREADS * per);
    if (t < best8)
      best8 = t;
  }
  printf("launch_8_threads %.1f ns\n", best8 * 1e9);
  if (bad)
    fprintf(stderr, "bench: concurrent launches computed wrong values\n");
  return bad;
}
