/* What exec.c and exec_event.c share: commands, workers, devices and
 * streams of the emu device's execution (see exec.c for the hand-off and
 * the lifetimes), and an event's generations. */
#ifndef OMPEMU_EXEC_INTERNAL_H
#define OMPEMU_EXEC_INTERNAL_H

#include "exec.h"
#include "exec_call.h"
#include "exec_inline.h"
#include "exec_wait.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define MAX_WORKERS 16
#define INLINE_ARGS 8
#define FAST_NS 2000 /* a host spin longer than a futex round trip */
#define NSLOT 4        /* commands kept inside each stream */

enum cmd_kind { CMD_KERNEL, CMD_CALL, CMD_COPY, CMD_EVSET, CMD_EVWAIT, CMD_MARK };

enum { ST_PENDING = 0, ST_DONE = 1, ST_SLEEPING = 2 };

/* The fields a command's kind uses are set by cmd_init and its creator;
 * the rest are left as they are (a command is not zeroed: it is reused).
 * Hot fields first, so a kernel launch touches few cache lines. */
struct cmd {
  _Alignas(64) struct cmd *next;
  enum cmd_kind kind;
  _Atomic uint32_t state;     /* sync: ST_* */
  struct exec_stream *stream; /* async: DONE counted there */
  unsigned char owned;        /* malloc'd: the worker frees it */
  unsigned char own_vals;     /* VALS malloc'd: the worker frees them */
  unsigned char has_ctx;
  unsigned char failed;       /* sync kernel: it could not start */
  struct exec_fault *fault;   /* sync kernel: where the reason goes */
  const char *fail_why;       /* fail instead of calling (injection) */
  int32_t n;
  void *entry;
  void **vals;
  struct emu_devctx ctx;
  void *inline_vals[INLINE_ARGS];
  void (*fn)(void *);
  void *arg;
  void *dst;
  const void *src;
  size_t len;
  struct exec_event *ev;
  uint64_t gen;
  uint64_t obs_id; /* the runtime's id of a kernel or copy (exec_observe.h) */
};

/* Laid out so that a hand-off moves one cache line of the queue: the
 * budgets, written by different threads, each have their own line. */
struct worker {
  _Alignas(64) pthread_mutex_t lock; /* protects HEAD/TAIL */
  struct cmd *head, *tail;
  _Atomic uint32_t count;  /* commands in the list */
  _Atomic uint32_t posted; /* futex word: bumped per command */
  _Atomic uint32_t pending; /* commands queued and not yet finished */
  _Alignas(64) _Atomic int sleeping;
  _Atomic int stop;
  _Atomic int busy; /* running a command (checked at destruction) */
  unsigned long nkernels; /* kernels started (the worker's own count) */
  struct exec_device *d;
  int idx;
  pthread_t th;
  _Alignas(64) struct spin_budget host_spin; /* hosts waiting for it */
  _Alignas(64) long idle_ns; /* its idle spin budget (the worker's own) */
  _Alignas(64) struct exec_cifs cifs; /* only touched by the worker thread */
};

struct exec_device {
  int dev;
  struct exec_options opt;
  _Atomic int icvs_state; /* FRESH: 0 not read, 1 reading, 2 read */
  struct exec_icvs fresh; /* a new libomp root's, read on a worker */
  int nworkers;
  _Atomic int next_worker;
  struct worker w[MAX_WORKERS];
};

/* Command number E of a stream lives in SLOT[E % NSLOT] when command
 * E - NSLOT is done (the worker's last access to a command comes before
 * it counts it in DONE), else it is malloc'd: most async work costs no
 * allocation. */
struct exec_stream {
  struct worker *w;
  uint64_t enq; /* commands queued (host side only) */
  _Alignas(64) _Atomic uint64_t done; /* commands finished (worker side) */
  _Atomic int failed;       /* FAULT is set (written by the worker first) */
  struct exec_fault fault;  /* the first kernel that could not start */
  struct cmd slot[NSLOT];
};

/* LOCK protects RECORDED and COMPLETED; COND signals COMPLETED.  REFS:
 * the owner's and one per queued command that points at it; the last one
 * let go frees it (exec_event_unref). */
struct exec_event {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  uint64_t recorded;  /* generation of the last record */
  uint64_t completed; /* highest generation reached */
  _Atomic int refs;
};



/* Generation GEN of EV is reached (a worker's CMD_EVSET, or at once). */
static inline void exec_event_reach(struct exec_event *ev, uint64_t gen) {
  pthread_mutex_lock(&ev->lock);
  if (ev->completed < gen)
    ev->completed = gen;
  pthread_cond_broadcast(&ev->cond);
  pthread_mutex_unlock(&ev->lock);
}

/* Let go of a reference to EV: freed with the last one.  Inline, as
 * exec_event_reach: exec.c and exec_event.c both let go of events, and
 * exec_event.c calls exec.c (no cycle between the two files). */
static inline void exec_event_unref(struct exec_event *ev) {
  if (atomic_fetch_sub_explicit(&ev->refs, 1, memory_order_acq_rel) != 1)
    return;
  pthread_cond_destroy(&ev->cond);
  pthread_mutex_destroy(&ev->lock);
  free(ev);
}

/* Wait until generation GEN of EV is reached. */
static inline void exec_event_wait_gen(struct exec_event *ev, uint64_t gen) {
  pthread_mutex_lock(&ev->lock);
  while (ev->completed < gen)
    pthread_cond_wait(&ev->cond, &ev->lock);
  pthread_mutex_unlock(&ev->lock);
}

/* A command of KIND for stream *SP (NULL: synchronous, in STACK when
 * given); NULL when no memory. */
struct cmd *exec_new_cmd(struct exec_device *d, struct exec_stream **sp,
                         struct cmd *stack, enum cmd_kind kind);
/* Queue C (from exec_new_cmd) and, when synchronous, wait for it. */
int exec_submit(struct exec_device *d, struct cmd *c);

#endif
