/* Benchmark groups that look at threads rather than single operations:
 * the 8-thread stress (map / kernel / nowait + depend / update / atomics)
 * and the CPU that a runtime's own threads use while the program mostly
 * sleeps.  Output format: bench.h. */
#define _GNU_SOURCE /* syscall */
#include "bench.h"

#include <dirent.h>
#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#pragma omp declare target
long stress_counter; /* not static: clang 22 updates only visible ones */
#pragma omp end declare target

enum { STRESS_THREADS = 8, STRESS_LEN = 64, STRESS_ROUNDS = 20 };

/* One round of one thread: map X, two dependent asynchronous kernels, an
 * update back, a kernel doing an atomic on a device global, unmap.
 * Returns the number of wrong values seen. */
static int stress_round(double *x, long seed) {
  int dep = 0, bad = 0;
  for (int i = 0; i < STRESS_LEN; i++)
    x[i] = (double)(seed + i);
#pragma omp target enter data map(to: x[0:STRESS_LEN])
#pragma omp target nowait depend(out: dep) map(tofrom: x[0:STRESS_LEN])
  for (int i = 0; i < STRESS_LEN; i++)
    x[i] *= 2;
#pragma omp target nowait depend(inout: dep) map(tofrom: x[0:STRESS_LEN])
  for (int i = 0; i < STRESS_LEN; i++)
    x[i] += 1;
#pragma omp taskwait
#pragma omp target update from(x[0:STRESS_LEN])
  for (int i = 0; i < STRESS_LEN; i++)
    bad += x[i] != 2.0 * (seed + i) + 1;
#pragma omp target
  {
#pragma omp atomic update
    stress_counter++;
  }
#pragma omp target exit data map(release: x[0:STRESS_LEN])
  return bad;
}

/* 8 threads of a host parallel region (so the runtime cannot run kernels
 * on the calling thread without care) each doing ROUNDS rounds: seconds
 * for the whole, one run per process (run.sh repeats the process).  Few
 * rounds per process and many processes: the rounds' time is libomp's
 * threads waiting for a core, which varies more between processes than
 * between rounds (tests/bench/PROFILE.md, "8-thread stress"). */
int group_stress(long scale) {
  long rounds = STRESS_ROUNDS * scale;
  int bad = 0;
  stress_counter = 0;
#pragma omp target update to(stress_counter)
  /* libomp's start-up, outside the timing: the team's threads and the
   * hidden helper threads that run the target tasks (libomp creates them
   * at the first one).  The same for both runtimes; timed, it was about
   * 1.7 s of each process at a load of 20, for either runtime. */
#pragma omp parallel num_threads(STRESS_THREADS)
  {
    int dep = 0;
#pragma omp target nowait depend(out: dep)
    {}
#pragma omp taskwait
  }
  double t0 = bench_now();
#pragma omp parallel num_threads(STRESS_THREADS) reduction(+: bad)
  {
    double x[STRESS_LEN];
    long tid = omp_get_thread_num();
    for (long r = 0; r < rounds; r++)
      bad += stress_round(x, tid * 1000003 + r);
  }
  double t = bench_now() - t0;
#pragma omp target update from(stress_counter)
  if (bad || stress_counter != STRESS_THREADS * rounds) {
    fprintf(stderr, "bench: stress computed wrong values (%d bad, counter %ld of %ld)\n",
            bad, stress_counter, STRESS_THREADS * rounds);
    return 1;
  }
  bench_print("stress_8_threads", t, "s");
  return 0;
}

/* Thread ids of the program's own threads during the idle-CPU group: the
 * main thread and the busy threads. */
enum { BUSY = 2 };
static pid_t own_tid[1 + BUSY];
static atomic_int n_own;

/* CPU time (ns) of every thread of the process that is not in OWN_TID,
 * from /proc/self/task/TID/schedstat (the scheduler's own count, in ns). */
static double others_cpu_ns(void) {
  DIR *dir = opendir("/proc/self/task");
  if (!dir)
    return -1;
  double sum = 0;
  struct dirent *e;
  while ((e = readdir(dir)) != NULL) {
    pid_t tid = (pid_t)atol(e->d_name);
    int own = tid <= 0;
    for (int i = 0; i < atomic_load(&n_own); i++)
      own |= own_tid[i] == tid;
    if (own)
      continue;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/schedstat", (int)tid);
    FILE *f = fopen(path, "r");
    unsigned long long ns;
    if (f && fscanf(f, "%llu", &ns) == 1)
      sum += (double)ns;
    if (f)
      fclose(f);
  }
  closedir(dir);
  return sum;
}

/* Host threads that want a core the whole time. */
static atomic_int busy_stop;
static void *busy(void *arg) {
  (void)arg;
  own_tid[atomic_fetch_add(&n_own, 1)] = (pid_t)syscall(SYS_gettid);
  volatile unsigned long n = 0;
  while (!atomic_load_explicit(&busy_stop, memory_order_relaxed))
    n++;
  return NULL;
}

/* An empty launch every 1 ms, LAUNCHES times: wall seconds. */
static double launch_every_ms(long launches) {
  double t0 = bench_now();
  struct timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (long i = 0; i < launches; i++) {
#pragma omp target
    {}
    next.tv_nsec += 1000000;
    if (next.tv_nsec >= 1000000000)
      next.tv_nsec -= 1000000000, next.tv_sec++;
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
      ;
  }
  return bench_now() - t0;
}

/* CPU time (ms) of the threads the program did not create (device
 * threads, helper threads) while it launches an empty kernel every 1 ms
 * for 1 s: first alone, then with every core wanted by a busy host
 * thread, where CPU that device threads take is taken from the program. */
int group_idle_cpu(long scale) {
  long launches = 1000 * scale;
  own_tid[0] = (pid_t)syscall(SYS_gettid);
  atomic_store(&n_own, 1);
  double c0 = others_cpu_ns();
  launch_every_ms(launches);
  bench_print("idle_cpu_other_threads", (others_cpu_ns() - c0) * 1e-6, "ms");

  pthread_t th[BUSY];
  atomic_store(&busy_stop, 0);
  for (int i = 0; i < BUSY; i++)
    if (pthread_create(&th[i], NULL, busy, NULL) != 0)
      return 1;
  while (atomic_load(&n_own) < 1 + BUSY)
    sched_yield();
  c0 = others_cpu_ns();
  double wall = launch_every_ms(launches);
  double others = others_cpu_ns() - c0;
  atomic_store(&busy_stop, 1);
  for (int i = 0; i < BUSY; i++)
    pthread_join(th[i], NULL);
  bench_print("idle_cpu_other_threads_cores_busy", others * 1e-6, "ms");
  /* 1 s when each launch takes well under 1 ms: more means the launching
   * thread waited for a core, or for a device thread that waited. */
  bench_print("launch_every_1ms_cores_busy", wall, "s");
  return 0;
}
