/* The fault of a kernel that is reported is the same every run
 * (fault_hold.h).
 *
 * Each faulting thread takes a slot, writes its message, its team and
 * thread numbers (libomp's, asked on the faulting thread) and the league's
 * size there, and parks in the signal handler (asleep: nanosleep).  The
 * first to park leads: every 10 ms it looks whether the fault can be
 * chosen, and then writes the held message of the lowest (team, thread,
 * address, message) and ends the process.  It can be chosen when
 *   - every thread of the league has faulted (the league's size: the
 *     largest product of omp_get_num_teams and omp_get_num_threads seen by
 *     a faulting thread), or
 *   - the process is still: every other thread is asleep or stopped, and
 *     their CPU times did not move, in three samples in a row of
 *     /proc/self/task (the threads still running a kernel wait at a
 *     barrier or a join for a parked one, or have finished; libomp's
 *     waiters spin for KMP_BLOCKTIME, 200 ms by default, then sleep).  A
 *     thread that is runnable but has no CPU (a loaded machine) keeps the
 *     choice waiting, so a slow thread's fault is not left out; or
 *   - nothing new faulted for HOLD_CAP_NS while another thread kept running
 *     (a host thread's endless work, KMP_BLOCKTIME=infinite): the choice
 *     is then among the faults held so far.
 * Only async-signal-safe calls after fault_hold_init (open, read,
 * getdents64, nanosleep, write), libomp's queries on a thread that runs
 * device code, and the flush of stdio before the end, as fault.c did. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"
#include "fault_hold.h"
#include "trace.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HOLD_SLOTS 256
#define HOLD_MSG 1400
#define HOLD_TICK_NS 10000000L       /* 10 ms between looks */
#define HOLD_STILL_SAMPLES 3         /* quiet looks in a row */
#define HOLD_CAP_NS 10000000000L     /* 10 s without a new fault */
#define HOLD_MAX_TASKS 4096          /* threads looked at per sample */

struct held {
  _Atomic int ready;
  int team, thread;
  pid_t tid;
  uintptr_t x;
  char msg[HOLD_MSG];
};

static struct held held[HOLD_SLOTS];
static _Atomic int nheld, leader;
static _Atomic long league, last_new_ns;
static int (*team_num)(void), (*num_teams)(void), (*thread_num)(void),
    (*num_threads)(void);

void fault_hold_init(void) {
  *(void **)&team_num = dlsym(RTLD_DEFAULT, "omp_get_team_num");
  *(void **)&num_teams = dlsym(RTLD_DEFAULT, "omp_get_num_teams");
  *(void **)&thread_num = dlsym(RTLD_DEFAULT, "omp_get_thread_num");
  *(void **)&num_threads = dlsym(RTLD_DEFAULT, "omp_get_num_threads");
}

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void nap(long ns) {
  struct timespec t = {ns / 1000000000L, ns % 1000000000L};
  while (nanosleep(&t, &t) != 0)
    ;
}

static int parked(pid_t tid) {
  int n = atomic_load(&nheld);
  for (int i = 0; i < n && i < HOLD_SLOTS; i++)
    if (atomic_load(&held[i].ready) && held[i].tid == tid)
      return 1;
  return 0;
}

/* Read /proc/self/task/TID/stat: *STATE and *CPU (utime + stime).  0 / -1. */
static int task_stat(const char *tid, char *state, unsigned long long *cpu) {
  char path[64] = "/proc/self/task/", buf[1024];
  size_t k = strlen(path);
  for (size_t i = 0; tid[i] && k < sizeof path - 6; i++)
    path[k++] = tid[i];
  memcpy(path + k, "/stat", 6);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0)
    return -1;
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the name may hold spaces and ')' */
  if (!p || p[1] != ' ')
    return -1;
  *state = p[2];
  /* Fields after the state: ppid pgrp session tty_nr tpgid flags minflt
   * cminflt majflt cmajflt utime stime (the 11th and 12th). */
  p += 3;
  unsigned long long f[12] = {0};
  for (int i = 0; i < 12 && *p; i++) {
    while (*p == ' ')
      p++;
    int neg = *p == '-';
    if (neg)
      p++;
    while (*p >= '0' && *p <= '9')
      f[i] = f[i] * 10 + (unsigned)(*p++ - '0');
    while (*p && *p != ' ')
      p++;
  }
  *cpu = f[10] + f[11];
  return 0;
}

/* Are all threads but the parked ones asleep or stopped?  *CPU: the sum of
 * their CPU times.  1 still, 0 not, -1 cannot tell. */
static int still(unsigned long long *cpu) {
  int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  char buf[4096];
  int res = 1, seen = 0;
  *cpu = 0;
  for (;;) {
    long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n <= 0) {
      if (n < 0)
        res = -1;
      break;
    }
    for (long off = 0; off < n;) {
      struct dirent64 *d = (struct dirent64 *)(buf + off);
      off += d->d_reclen;
      if (d->d_name[0] < '0' || d->d_name[0] > '9')
        continue;
      if (++seen > HOLD_MAX_TASKS) {
        res = -1;
        break;
      }
      pid_t tid = 0;
      for (const char *c = d->d_name; *c; c++)
        tid = tid * 10 + (*c - '0');
      if (parked(tid))
        continue;
      char st;
      unsigned long long c;
      if (task_stat(d->d_name, &st, &c) != 0)
        continue; /* ended since */
      *cpu += c;
      if (st != 'S' && st != 'T' && st != 't' && st != 'Z' && st != 'X' &&
          st != 'x' && st != 'I')
        res = 0; /* running or runnable (R), or in disk wait (D) */
    }
    if (res < 0)
      break;
  }
  close(fd);
  return res;
}

/* The index of the held fault to report: the lowest (team, thread,
 * address, message) among those ready. */
static int choose(void) {
  int n = atomic_load(&nheld), best = -1;
  for (int i = 0; i < n && i < HOLD_SLOTS; i++) {
    const struct held *h = &held[i];
    if (!atomic_load(&h->ready))
      continue;
    if (best >= 0) {
      const struct held *b = &held[best];
      if (h->team != b->team ? h->team > b->team
          : h->thread != b->thread ? h->thread > b->thread
          : h->x != b->x ? h->x > b->x
                         : strcmp(h->msg, b->msg) >= 0)
        continue;
    }
    best = i;
  }
  return best;
}

static int ready_count(void) {
  int n = atomic_load(&nheld), r = 0;
  for (int i = 0; i < n && i < HOLD_SLOTS; i++)
    r += atomic_load(&held[i].ready);
  return r;
}

void fault_hold(const char *msg, uintptr_t x, int kernel_thread,
                const char *end, int status) {
  int k = atomic_fetch_add(&nheld, 1);
  if (k < HOLD_SLOTS) {
    struct held *h = &held[k];
    h->tid = (pid_t)syscall(SYS_gettid);
    h->x = x;
    long size = 1;
    if (kernel_thread && team_num && thread_num) {
      h->team = team_num();
      h->thread = thread_num();
      if (num_teams && num_threads)
        size = (long)num_teams() * num_threads();
    }
    size_t n = strlen(msg);
    if (n >= HOLD_MSG)
      n = HOLD_MSG - 1;
    memcpy(h->msg, msg, n);
    h->msg[n] = 0;
    long old = atomic_load(&league);
    while (size > old && !atomic_compare_exchange_weak(&league, &old, size))
      ;
    atomic_store(&last_new_ns, now_ns());
    atomic_store(&h->ready, 1);
  }
  if (atomic_exchange(&leader, 1)) {
    for (;;)
      nap(1000000000L); /* the leader ends the process */
  }
  unsigned long long cpu = 0, last_cpu = ~0ULL;
  int quiet = 0;
  for (;;) {
    if (ready_count() >= atomic_load(&league))
      break;
    if (now_ns() - atomic_load(&last_new_ns) > HOLD_CAP_NS)
      break;
    nap(HOLD_TICK_NS);
    int s = still(&cpu);
    quiet = s == 1 && cpu == last_cpu ? quiet + 1 : 0;
    last_cpu = cpu;
    if (quiet >= HOLD_STILL_SAMPLES && ready_count() == atomic_load(&nheld))
      break;
  }
  int best = choose();
  if (best >= 0)
    ompemu_write_stderr(held[best].msg);
  ompemu_write_stderr(end);
  if (status < 0)
    return;
  fflush(stdout);
  fflush(stderr);
  _exit(status);
}
