/* Worker threads and streams (see exec.h); the structures they share
 * with exec_event.c are in exec_internal.h, the libffi call of a kernel is
 * in exec_call.c.
 *
 * Hand-off: a command is appended to its worker's list under the worker's
 * mutex; an idle worker watches the atomic POSTED counter, a waiting host
 * the command's STATE word (or its stream's DONE count), each in up to
 * three phases (exec_wait.c): a short spin, then sched_yield, then a
 * futex sleep.  The spin and the yields only while a core is free
 * (wait_core_free, sampled from /proc/loadavg every 2 ms): on a busy
 * machine a spinning or yielding thread takes the core, for a whole time
 * slice, from a thread that waits for one, so waits sleep at once there
 * (a futex round trip costs ~5 us on this 2-core VM; a yield to a busy
 * host thread 3-5 ms).  An idle worker also spins no longer than the
 * recent gaps between its commands say pays (wait_idle_budget): one that
 * is handed a command per millisecond sleeps at once, one given commands
 * back to back spins for up to OMPEMU_SPIN_US.  On a quiet machine
 * back-to-back launches then cost a few cache-line transfers.
 *
 * Lifetimes: a synchronous command lives on the waiting host's stack; the
 * worker's last access to it is the atomic exchange that completes it.  An
 * asynchronous command is a slot of its stream, reused once the stream's
 * DONE count shows the worker finished with it, or (when all slots are
 * busy) malloc'd and freed by the worker.  exec_sync
 * releases a stream only once its DONE count (the worker's last access)
 * equals its ENQ count, or after a marker queued behind all its commands
 * has run, so the worker never touches a released stream.
 *
 * Failures: a kernel that cannot start (libffi cannot prepare the call, no
 * memory for its argument list, an injected fault) fails on its worker.  A
 * synchronous launch returns the fault to its waiting host; an
 * asynchronous one leaves it in its stream (the first one only), where the
 * next exec_drain or exec_sync finds it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include "config.h"
#include "exec.h"
#include "arena.h"
#include "exec_call.h"
#include "exec_inline.h"
#include "exec_internal.h"
#include "exec_observe.h"
#include "exec_wait.h"
#include "fastmem.h"
#include "envvar.h"
#include "trace.h"

#include <sched.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Zeroed memory aligned for the _Alignas(64) members above. */
static void *zalloc64(size_t size) {
  size = (size + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, size);
  if (p)
    memset(p, 0, size);
  return p;
}

/* This thread's state, one __thread object: each function that reads one
 * pays one __tls_get_addr call (general-dynamic model; initial-exec would
 * need the plugin's whole TLS block in glibc's static surplus, which a
 * dlopen'ed plugin does not get: tests/bench/profile/launch.md). */
static __thread struct {
  /* Host thread -> worker index + 1, per device. */
  int my_worker[EMU_MAX_DEVICES];
  /* The worker the calling thread is, NULL on any other thread. */
  struct worker *self_worker;
  /* One released stream kept per host thread and device, so a target
   * region with its own __tgt_async_info costs no allocation. */
  struct exec_stream *spare_stream[EMU_MAX_DEVICES];
  /* libffi call descriptions for kernels this thread runs itself. */
  struct exec_cifs here_cifs;
  uintptr_t stack_lo; /* for exec_inline_stack_ok */
} tl;
static pthread_key_t spare_key; /* frees a thread's spares when it exits */
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;

static void spare_free(void *unused) {
  (void)unused;
  for (int i = 0; i < EMU_MAX_DEVICES; i++) {
    free(tl.spare_stream[i]);
    tl.spare_stream[i] = NULL;
  }
}

static void spare_key_init(void) { pthread_key_create(&spare_key, spare_free); }

/* Keep S as this thread's spare for device DEV (or free it). */
static void spare_put(int dev, struct exec_stream *s) {
  if (tl.spare_stream[dev]) {
    free(s);
    return;
  }
  pthread_once(&spare_once, spare_key_init);
  if (!pthread_getspecific(spare_key))
    pthread_setspecific(spare_key, (void *)1);
  tl.spare_stream[dev] = s;
}

/* A host spins at most FAST_NS: beyond that a futex sleep costs less than
 * the CPU time a spinning host takes from the worker on a busy machine. */
static long host_max(const struct exec_device *d) {
  return d->opt.spin_ns < FAST_NS ? d->opt.spin_ns : FAST_NS;
}

void exec_read_options(struct exec_options *o) {
  long long v;
  size_t sz;
  int b = 0;
  ompemu_env_bool("OMPEMU_SERIAL", 0, &b);
  o->serial = b;
  ompemu_env_int("OMPEMU_DEVICE_THREADS", 2, 1, MAX_WORKERS, &v);
  o->workers = o->serial ? 1 : (int)v;
  ompemu_env_size("OMPEMU_STACK_SIZE", 8u << 20, 64u << 10, (size_t)1 << 32,
                  &sz);
  o->stack_size = sz;
  ompemu_env_int("OMPEMU_SPIN_US", 50, 0, 1000000, &v);
  o->spin_ns = (long)v * 1000;
}

/* ---------------------------------------------------------------- queue */

static void push(struct worker *w, struct cmd *c) {
  c->next = NULL;
  pthread_mutex_lock(&w->lock);
  if (w->tail)
    w->tail->next = c;
  else
    w->head = c;
  w->tail = c;
  atomic_fetch_add(&w->count, 1);
  atomic_fetch_add(&w->pending, 1);
  pthread_mutex_unlock(&w->lock);
  atomic_fetch_add(&w->posted, 1);
  if (atomic_load(&w->sleeping))
    wait_futex(&w->posted, FUTEX_WAKE, 1);
}

static struct cmd *pop(struct worker *w) {
  if (atomic_load_explicit(&w->count, memory_order_acquire) == 0)
    return NULL;
  pthread_mutex_lock(&w->lock);
  struct cmd *c = w->head;
  if (c) {
    w->head = c->next;
    if (!w->head)
      w->tail = NULL;
    atomic_fetch_sub(&w->count, 1);
  }
  pthread_mutex_unlock(&w->lock);
  return c;
}

/* Wait on the host until *ST, a command of worker W, is ST_DONE. */
static void wait_done(struct worker *w, _Atomic uint32_t *st) {
  if (wait_spin(&w->host_spin, host_max(w->d), FAST_NS, st, ST_PENDING))
    return;
  uint32_t exp = ST_PENDING;
  /* Yielding hands a busy machine's core to whoever wants it, for a whole
   * time slice: only while a core is free. */
  if (wait_core_free(wait_now_ns()) &&
      wait_yield(st, ST_PENDING, w->d->opt.spin_ns))
    return;
  if (!atomic_compare_exchange_strong(st, &exp, ST_SLEEPING))
    return; /* became ST_DONE */
  while (atomic_load(st) != ST_DONE)
    wait_futex(st, FUTEX_WAIT, ST_SLEEPING);
}

static void complete(struct cmd *c) {
  if (atomic_exchange(&c->state, ST_DONE) == ST_SLEEPING)
    wait_futex(&c->state, FUTEX_WAKE, 1); /* C may be dead memory: no access */
}

/* ---------------------------------------------------------------- worker */

/* Call kernel C on worker W.  0, or -1 with the reason in *F. */
static int run_kernel(struct worker *w, struct cmd *c, struct exec_fault *f) {
  f->entry = c->entry;
  w->nkernels++;
  if (c->fail_why) {
    snprintf(f->why, sizeof f->why, "%s", c->fail_why);
    return -1;
  }
  return exec_call_kernel(&w->cifs, c->entry, c->vals, c->n, &c->ctx, NULL,
                          f);
}

/* Keep F as stream S's fault unless it has one (only S's worker writes). */
static void stream_fail(struct exec_stream *s, const struct exec_fault *f) {
  if (atomic_load_explicit(&s->failed, memory_order_relaxed))
    return;
  s->fault = *f;
  atomic_store_explicit(&s->failed, 1, memory_order_release);
}

static void run(struct worker *w, struct cmd *c) {
  struct exec_stream *s = c->stream;
  struct emu_obs_run obs;
  EMU_OBS_START(&obs, c->kind == CMD_KERNEL, c->kind == CMD_COPY, c->entry,
                c->len, c->obs_id);
  switch (c->kind) {
  case CMD_KERNEL: {
    struct exec_fault f;
    if (run_kernel(w, c, &f) != 0) {
      if (s) {
        stream_fail(s, &f);
      } else {
        *c->fault = f;
        c->failed = 1; /* read by the host after complete() */
      }
    }
    break;
  }
  case CMD_CALL: {
    struct emu_devctx *old = emu_current_ctx();
    if (c->has_ctx)
      emu_set_ctx(&c->ctx);
    c->fn(c->arg);
    emu_set_ctx(old);
    break;
  }
  case CMD_COPY:
    emu_copy(c->dst, c->src, c->len);
    break;
  case CMD_EVSET:
    exec_event_reach(c->ev, c->gen);
    exec_event_unref(c->ev);
    break;
  case CMD_EVWAIT:
    exec_event_wait_gen(c->ev, c->gen);
    exec_event_unref(c->ev);
    break;
  case CMD_MARK:
    break;
  }
  EMU_OBS_STOP(&obs);
  /* Not busy from here on: a host that saw C completed may destroy the
   * device at once (exec_device_destroy refuses a busy worker). */
  atomic_store_explicit(&w->busy, 0, memory_order_release);
  atomic_fetch_sub_explicit(&w->pending, 1, memory_order_release);
  if (!s) {
    complete(c);
    EMU_OBS_SEND(w->d->dev, w->idx, &obs);
    return;
  }
  if (c->own_vals)
    free(c->vals);
  if (c->owned)
    free(c);
  /* The last access to C (a slot of S may be reused from here on). */
  atomic_fetch_add_explicit(&s->done, 1, memory_order_release);
  EMU_OBS_SEND(w->d->dev, w->idx, &obs);
}

/* Worker W is idle and *POSTED was V: wait until it changes.  It spins
 * (then yields) only while a core is free and for as long as the recent
 * gaps between its commands say a spin would pay (wait_idle_budget);
 * otherwise it sleeps on the futex at once, taking no CPU from threads
 * that wait for one.  A worker that slept makes the host's next hand-off
 * a futex wake-up. */
static void idle_wait(struct worker *w, uint32_t v) {
  long t0 = wait_now_ns(), b = w->idle_ns;
  long pause = b < host_max(w->d) ? b : host_max(w->d);
  if (b <= 0 || !wait_core_free(t0) ||
      !(wait_spin_for(&w->posted, v, pause) ||
        wait_yield(&w->posted, v, b - pause))) {
    atomic_store(&w->sleeping, 1);
    if (atomic_load(&w->posted) == v && !atomic_load(&w->stop))
      wait_futex(&w->posted, FUTEX_WAIT, v);
    atomic_store(&w->sleeping, 0);
  }
  w->idle_ns = wait_idle_budget(b, wait_now_ns() - t0, w->d->opt.spin_ns);
}

static void *worker_main(void *arg) {
  struct worker *w = arg;
  tl.self_worker = w;
  for (;;) {
    uint32_t v = atomic_load(&w->posted);
    struct cmd *c = pop(w);
    if (c) {
      atomic_store_explicit(&w->busy, 1, memory_order_relaxed);
      run(w, c); /* clears BUSY */
      continue;
    }
    if (atomic_load(&w->stop))
      break;
    idle_wait(w, v);
  }
  return NULL;
}

struct exec_device *exec_device_create(int dev, const struct exec_options *o) {
  if (dev < 0 || dev >= EMU_MAX_DEVICES)
    return NULL;
  struct exec_device *d = zalloc64(sizeof *d);
  if (!d) {
    ompemu_error("emu", "device %d: out of host memory for its workers", dev);
    return NULL;
  }
  d->dev = dev;
  d->opt = *o;
  d->nworkers = o->workers < 1 ? 1 : o->workers > MAX_WORKERS ? MAX_WORKERS
                                                               : o->workers;
  pthread_attr_t at;
  pthread_attr_init(&at);
  int e = pthread_attr_setstacksize(&at, o->stack_size);
  if (e) {
    ompemu_error("emu", "device %d: cannot use a worker stack of %zu bytes: "
                 "%s", dev, o->stack_size, strerror(e));
    pthread_attr_destroy(&at);
    free(d);
    return NULL;
  }
  for (int i = 0; i < d->nworkers; i++) {
    struct worker *w = &d->w[i];
    w->d = d;
    w->idx = i;
    pthread_mutex_init(&w->lock, NULL);
    e = pthread_create(&w->th, &at, worker_main, w);
    if (e) {
      ompemu_error("emu", "device %d: cannot start worker thread %d (stack "
                   "%zu bytes): %s", dev, i, o->stack_size, strerror(e));
      d->nworkers = i;
      pthread_attr_destroy(&at);
      exec_device_destroy(d);
      return NULL;
    }
    char name[16];
    snprintf(name, sizeof name, "emu-dev%d.%d", dev % 100, i % 100);
    pthread_setname_np(w->th, name);
  }
  pthread_attr_destroy(&at);
  ompemu_trace(2, "emu", "device %d: %d worker thread(s), stack %zu bytes%s",
               dev, d->nworkers, o->stack_size, o->serial ? ", serial" : "");
  return d;
}

int exec_device_destroy(struct exec_device *d) {
  if (!d)
    return 0;
  /* A worker cannot join itself (exit called by a kernel), and one still
   * running a command would make the join wait for it, maybe forever. */
  for (int i = 0; i < d->nworkers; i++)
    if (tl.self_worker == &d->w[i] ||
        atomic_load_explicit(&d->w[i].busy, memory_order_acquire))
      return -1;
  free(tl.spare_stream[d->dev]); /* the caller's; others stay with theirs */
  tl.spare_stream[d->dev] = NULL;
  for (int i = 0; i < d->nworkers; i++) {
    struct worker *w = &d->w[i];
    atomic_store(&w->stop, 1);
    atomic_fetch_add(&w->posted, 1);
    wait_futex(&w->posted, FUTEX_WAKE, 1);
    pthread_join(w->th, NULL);
    pthread_mutex_destroy(&w->lock);
  }
  free(d);
  return 0;
}

int exec_on_worker(void) { return tl.self_worker != NULL; }

unsigned long exec_worker_kernels(void) {
  return tl.self_worker ? tl.self_worker->nkernels : 0;
}

size_t exec_worker_stack_size(void) {
  return tl.self_worker ? tl.self_worker->d->opt.stack_size : 0;
}

/* Report F, a fault nobody asked for, on device DEV. */
static void report_fault(int dev, const struct exec_fault *f) {
  ompemu_error("emu", "device %d: kernel " OMPEMU_PTR " could not start: %s",
               dev, OMPEMU_P(f->entry), f->why);
}

/* ---------------------------------------------------------------- host */

/* The calling thread's worker of D; MINE: this thread's my_worker. */
static struct worker *my_w_of(struct exec_device *d, int *mine) {
  int k = mine[d->dev];
  if (!k) {
    k = atomic_fetch_add(&d->next_worker, 1) % d->nworkers + 1;
    mine[d->dev] = k;
  }
  return &d->w[k - 1];
}

static struct worker *my_w(struct exec_device *d) {
  return my_w_of(d, tl.my_worker);
}

static struct exec_stream *stream_get(struct exec_device *d,
                                      struct exec_stream **sp) {
  if (!*sp) {
    struct exec_stream *s = tl.spare_stream[d->dev];
    if (s) {
      tl.spare_stream[d->dev] = NULL;
      s->enq = 0;
      atomic_store_explicit(&s->done, 0, memory_order_relaxed);
      atomic_store_explicit(&s->failed, 0, memory_order_relaxed);
    } else {
      s = zalloc64(sizeof *s);
    }
    if (!s) {
      ompemu_error("emu", "device %d: out of host memory for a queue", d->dev);
      return NULL;
    }
    s->w = my_w(d);
    *sp = s;
  }
  return *sp;
}

int exec_pending(struct exec_stream *s) {
  return s && atomic_load_explicit(&s->done, memory_order_acquire) != s->enq;
}

static void cmd_init(struct cmd *c, enum cmd_kind kind) {
  c->next = NULL;
  c->kind = kind;
  atomic_store_explicit(&c->state, ST_PENDING, memory_order_relaxed);
  c->stream = NULL;
  c->owned = c->own_vals = c->has_ctx = c->failed = 0;
  c->fault = NULL;
  c->fail_why = NULL;
  c->n = 0;
  c->vals = NULL;
  c->obs_id = 0;
}

/* A command of KIND: STACK (synchronous) when SP is NULL, else one for
 * *SP's next position, a free slot of the stream or malloc'd. */
struct cmd *exec_new_cmd(struct exec_device *d, struct exec_stream **sp,
                         struct cmd *stack, enum cmd_kind kind) {
  if (!sp) {
    cmd_init(stack, kind);
    return stack;
  }
  struct exec_stream *s = stream_get(d, sp);
  if (!s)
    return NULL;
  struct cmd *c;
  int owned = 0;
  if (atomic_load_explicit(&s->done, memory_order_acquire) + NSLOT > s->enq) {
    c = &s->slot[s->enq % NSLOT];
  } else if ((c = zalloc64(sizeof *c))) {
    owned = 1;
  } else {
    ompemu_error("emu", "device %d: out of host memory for a command", d->dev);
    return NULL;
  }
  cmd_init(c, kind);
  c->stream = s;
  c->owned = (unsigned char)owned;
  return c;
}

/* Queue C (from exec_new_cmd): on its stream, or on the caller's worker,
 * waiting for it.  -1 if C is a synchronous kernel that could not start. */
int exec_submit(struct exec_device *d, struct cmd *c) {
  struct exec_stream *s = c->stream;
  if (s) {
    s->enq++;
    push(s->w, c);
    return 0;
  }
  struct worker *w = my_w(d);
  push(w, c);
  wait_done(w, &c->state);
  return c->failed ? -1 : 0;
}

int exec_launch(struct exec_device *d, struct exec_stream **sp, void *entry,
                void *const *args, const ptrdiff_t *offsets, int32_t n,
                const struct emu_devctx *ctx, struct exec_fault *fault) {
  if (n < 0 || !entry)
    return -1;
  struct exec_fault local;
  struct cmd stack, *c = exec_new_cmd(d, sp, &stack, CMD_KERNEL);
  if (!c)
    return -1;
  c->entry = entry;
  c->n = n;
  c->ctx = *ctx;
  c->has_ctx = 1;
  c->fault = fault ? fault : &local;
  void *vla[n <= 256 ? (n ? n : 1) : 1];
  if (n <= INLINE_ARGS)
    c->vals = c->inline_vals;
  else if (!sp && n <= 256)
    c->vals = vla;
  else if ((c->vals = malloc((size_t)n * sizeof(void *))))
    c->own_vals = sp != NULL;
  else {
    if (c->owned)
      free(c);
    ompemu_error("emu", "device %d: out of host memory for the %d arguments "
                 "of kernel " OMPEMU_PTR, d->dev, n, OMPEMU_P(entry));
    return -1;
  }
  if (offsets)
    for (int32_t i = 0; i < n; i++)
      c->vals[i] = (char *)args[i] + offsets[i];
  else
    for (int32_t i = 0; i < n; i++)
      c->vals[i] = args[i];
  c->obs_id = EMU_OBS_QUEUED();
  void **vals = c->vals; /* C may be gone once queued on a stream */
  int rc = exec_submit(d, c);
  if (!sp && vals != stack.inline_vals && vals != vla)
    free(vals);
  if (rc != 0 && !fault)
    report_fault(d->dev, &local);
  return rc;
}

/* D's new-root ICVs, read once on the caller's worker: NULL while another
 * thread reads them. */
static const struct exec_icvs *fresh_icvs(struct exec_device *d) {
  int st = atomic_load_explicit(&d->icvs_state, memory_order_acquire);
  if (st == 2)
    return &d->fresh;
  int exp = 0;
  if (st != 0 || !atomic_compare_exchange_strong(&d->icvs_state, &exp, 1))
    return NULL;
  if (exec_call(d, exec_inline_read_icvs, &d->fresh, NULL) != 0) {
    atomic_store(&d->icvs_state, 0);
    return NULL;
  }
  atomic_store_explicit(&d->icvs_state, 2, memory_order_release);
  return &d->fresh;
}

int exec_launch_here(struct exec_device *d, struct exec_stream **sp,
                     void *entry, void *const *args, const ptrdiff_t *offsets,
                     int32_t n, const struct emu_devctx *ctx,
                     struct exec_fault *fault, unsigned needs) {
  struct worker *w;
  const struct exec_icvs *fresh;
  struct emu_devctx **slot;
  /* One __tls_get_addr for the whole function: the empty asm hides where T
   * comes from, or GCC calls it again after each call below. */
  __typeof__(tl) *t = &tl;
  __asm__("" : "+r"(t));
  /* With device events on (a timeline, a summary) kernels stay on the
   * workers: their events are the workers' and recorded by them. */
  if (d->opt.serial || (needs & EXEC_THREAD_BOUND) || t->self_worker ||
      EMU_OBS_ON() ||
      *(slot = emu_ctx_slot()) || n < 0 || n > 256 || !entry ||
      (sp && exec_pending(*sp)) ||
      atomic_load_explicit(&(w = my_w_of(d, t->my_worker))->pending,
                           memory_order_acquire) ||
      !exec_inline_stack_ok(d->opt.stack_size, &t->stack_lo) ||
      ((needs & EXEC_USES_LIBOMP) &&
       (!(fresh = fresh_icvs(d)) || !exec_inline_icvs_ok(fresh))))
    return exec_launch(d, sp, entry, args, offsets, n, ctx, fault);
  void *vals[n ? n : 1];
  for (int32_t i = 0; i < n; i++)
    vals[i] = offsets ? (char *)args[i] + offsets[i] : args[i];
  struct emu_devctx c = *ctx;
  struct exec_fault f;
  f.entry = entry;
  int rc = exec_call_kernel(&t->here_cifs, entry, vals, n, &c, slot, &f);
  if (rc == 0)
    return 0;
  if (sp) { /* as if queued: the stream keeps the fault */
    struct exec_stream *s = stream_get(d, sp);
    if (!s)
      return -1;
    stream_fail(s, &f);
    return 0;
  }
  if (fault)
    *fault = f;
  else
    report_fault(d->dev, &f);
  return -1;
}

int exec_launch_failing(struct exec_device *d, struct exec_stream **sp,
                        void *entry, const char *why,
                        struct exec_fault *fault) {
  struct exec_fault local;
  struct cmd stack, *c = exec_new_cmd(d, sp, &stack, CMD_KERNEL);
  if (!c)
    return -1;
  c->entry = entry;
  c->fail_why = why;
  c->fault = fault ? fault : &local;
  int rc = exec_submit(d, c);
  if (rc != 0 && !fault)
    report_fault(d->dev, &local);
  return rc;
}

int exec_call(struct exec_device *d, void (*fn)(void *), void *arg,
              const struct emu_devctx *ctx) {
  struct cmd c;
  cmd_init(&c, CMD_CALL);
  c.fn = fn;
  c.arg = arg;
  if (ctx) {
    c.ctx = *ctx;
    c.has_ctx = 1;
  }
  return exec_submit(d, &c);
}

int exec_copy(struct exec_device *d, struct exec_stream **sp, void *dst,
              const void *src, size_t len) {
  if (!d->opt.serial && (!sp || !exec_pending(*sp))) {
    emu_copy(dst, src, len);
    return 0;
  }
  struct cmd stack, *c = exec_new_cmd(d, sp, &stack, CMD_COPY);
  if (!c)
    return -1;
  c->dst = dst;
  c->src = src;
  c->len = len;
  c->obs_id = EMU_OBS_QUEUED();
  return exec_submit(d, c);
}

int exec_drain(struct exec_device *d, struct exec_stream **sp,
               struct exec_fault *fault) {
  struct exec_stream *s = *sp;
  if (!s)
    return 0;
  long obs_t0 = EMU_OBS_NOW();
  /* Usually the work is short: watch DONE for a while (the worker's host
   * budget) before queueing a marker to sleep on. */
  if (exec_pending(s) && d->opt.spin_ns > 0) {
    struct worker *w = s->w;
    long ns = wait_budget_get(&w->host_spin, host_max(d)), start = 0, t = 0;
    for (unsigned i = 0; exec_pending(s); i++) {
      wait_relax();
      if ((i & 31) == 31) {
        t = wait_now_ns();
        if (!start)
          start = t;
        else if (t - start > ns)
          break;
      }
    }
    wait_budget_update(&w->host_spin, ns, !exec_pending(s) && t - start < FAST_NS,
                  host_max(d));
  }
  long start;
  if (exec_pending(s) && d->opt.spin_ns > 0 &&
      wait_core_free(start = wait_now_ns())) {
    for (unsigned i = 1; exec_pending(s); i++) {
      sched_yield();
      if ((i & 7) == 0 && wait_now_ns() - start > d->opt.spin_ns)
        break;
    }
  }
  if (exec_pending(s)) {
    /* The marker runs after every command of S, so S is idle afterwards.
     * When DONE == ENQ the worker's last access to S is already behind. */
    struct cmd m;
    cmd_init(&m, CMD_MARK);
    push(s->w, &m);
    wait_done(s->w, &m.state);
  }
  EMU_OBS_WAIT(d->dev, s->w->idx, obs_t0);
  /* DONE (acquire) covers FAILED: the worker sets it before counting. */
  if (!atomic_load_explicit(&s->failed, memory_order_acquire))
    return 0;
  if (fault)
    *fault = s->fault;
  return -1;
}

int exec_sync(struct exec_device *d, struct exec_stream **sp,
              struct exec_fault *fault) {
  struct exec_stream *s = *sp;
  if (!s)
    return 0;
  struct exec_fault local;
  int rc = exec_drain(d, sp, &local);
  if (rc != 0) {
    if (fault)
      *fault = local;
    else
      report_fault(d->dev, &local);
  }
  spare_put(d->dev, s);
  *sp = NULL;
  return rc;
}

