/* Unit tests of emu device execution (src/plugins/emu/exec.c): kernel calls
 * with N pointer arguments and offsets, device threads and their context,
 * in-order async queues, synchronize, events, and the launch latency. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_testutil.h"
#include "exec.h"
#include "exec_internal.h"

static struct exec_device *dev;

static int setup(void **state) {
  (void)state;
  struct exec_options o;
  exec_read_options(&o);
  o.workers = 2;
  dev = exec_device_create(1, &o);
  return dev ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  exec_device_destroy(dev);
  return 0;
}

static void *seen[12];
static pthread_t seen_thread;
static struct emu_devctx seen_ctx;
static int seen_has_ctx;

static void k12(void *a0, void *a1, void *a2, void *a3, void *a4, void *a5,
                void *a6, void *a7, void *a8, void *a9, void *a10, void *a11) {
  void *v[12] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11};
  memcpy(seen, v, sizeof v);
  seen_thread = pthread_self();
  struct emu_devctx *c = emu_current_ctx();
  seen_has_ctx = c != NULL;
  if (c)
    seen_ctx = *c;
}

/* Kernels of 0 to 8 arguments are called directly (exec_call.c), beyond
 * that through libffi: each count gets its arguments in order and the
 * device context, on a worker (exec_launch) and on the caller
 * (exec_launch_here). */
static void *seen_n[9];
static int seen_count, seen_ctx_dev;
static void note_ctx(void) {
  struct emu_devctx *c = emu_current_ctx();
  seen_ctx_dev = c ? c->device : -1;
}
static void k0(void) { seen_count = 0; note_ctx(); }
static void k1(void *a) { seen_n[0] = a; seen_count = 1; note_ctx(); }
static void k2(void *a, void *b) {
  seen_n[0] = a, seen_n[1] = b, seen_count = 2;
  note_ctx();
}
static void k3(void *a, void *b, void *c) {
  seen_n[0] = a, seen_n[1] = b, seen_n[2] = c, seen_count = 3;
  note_ctx();
}
static void k4(void *a, void *b, void *c, void *d) {
  seen_n[0] = a, seen_n[1] = b, seen_n[2] = c, seen_n[3] = d, seen_count = 4;
  note_ctx();
}
static void k5(void *a, void *b, void *c, void *d, void *e) {
  seen_n[0] = a, seen_n[1] = b, seen_n[2] = c, seen_n[3] = d, seen_n[4] = e;
  seen_count = 5;
  note_ctx();
}
static void k6(void *a, void *b, void *c, void *d, void *e, void *f) {
  seen_n[0] = a, seen_n[1] = b, seen_n[2] = c, seen_n[3] = d, seen_n[4] = e;
  seen_n[5] = f, seen_count = 6;
  note_ctx();
}
static void k7(void *a, void *b, void *c, void *d, void *e, void *f,
               void *g) {
  seen_n[0] = a, seen_n[1] = b, seen_n[2] = c, seen_n[3] = d, seen_n[4] = e;
  seen_n[5] = f, seen_n[6] = g, seen_count = 7;
  note_ctx();
}
static void k8(void *a, void *b, void *c, void *d, void *e, void *f, void *g,
               void *h) {
  seen_n[0] = a, seen_n[1] = b, seen_n[2] = c, seen_n[3] = d, seen_n[4] = e;
  seen_n[5] = f, seen_n[6] = g, seen_n[7] = h, seen_count = 8;
  note_ctx();
}
static void k9(void *a, void *b, void *c, void *d, void *e, void *f, void *g,
               void *h, void *i) {
  seen_n[0] = a, seen_n[1] = b, seen_n[2] = c, seen_n[3] = d, seen_n[4] = e;
  seen_n[5] = f, seen_n[6] = g, seen_n[7] = h, seen_n[8] = i;
  seen_count = 9;
  note_ctx();
}

static void test_arg_counts(void **state) {
  (void)state;
  void *ks[] = {(void *)k0, (void *)k1, (void *)k2, (void *)k3, (void *)k4,
                (void *)k5, (void *)k6, (void *)k7, (void *)k8, (void *)k9};
  char buf[16];
  void *args[9];
  ptrdiff_t offs[9];
  for (int i = 0; i < 9; i++) {
    args[i] = buf;
    offs[i] = i + 1;
  }
  for (int here = 0; here < 2; here++)
    for (int n = 0; n <= 9; n++) {
      struct emu_devctx ctx = {1, NULL, 1, 1, 0};
      memset(seen_n, 0, sizeof seen_n);
      seen_count = seen_ctx_dev = -1;
      struct exec_fault f;
      int rc = here ? exec_launch_here(dev, NULL, ks[n], args, offs, n, &ctx,
                                       &f, 0)
                    : exec_launch(dev, NULL, ks[n], args, offs, n, &ctx, NULL);
      assert_int_equal(rc, 0);
      assert_int_equal(seen_count, n);
      assert_int_equal(seen_ctx_dev, 1);
      for (int i = 0; i < n; i++)
        assert_ptr_equal(seen_n[i], buf + i + 1);
    }
  assert_null(emu_current_ctx());
}

static void test_ffi_args(void **state) {
  (void)state;
  char buf[64];
  void *args[12];
  ptrdiff_t offs[12];
  for (int i = 0; i < 12; i++) {
    args[i] = buf + i;
    offs[i] = i * 3 - 5;
  }
  const struct emu_image *fake_img = (const void *)0x1234;
  struct emu_devctx ctx = {1, fake_img, 7, 64, 1000};
  assert_int_equal(exec_launch(dev, NULL, (void *)k12, args, offs, 12, &ctx, NULL),
                   0);
  for (int i = 0; i < 12; i++)
    assert_ptr_equal(seen[i], buf + i + i * 3 - 5);
  assert_false(pthread_equal(seen_thread, pthread_self()));
  assert_true(seen_has_ctx);
  assert_int_equal(seen_ctx.device, 1);
  assert_ptr_equal(seen_ctx.img, fake_img);
  assert_int_equal(seen_ctx.num_teams, 7);
  assert_int_equal(seen_ctx.thread_limit, 64);
  assert_int_equal(seen_ctx.tripcount, 1000);
  assert_null(emu_current_ctx()); /* the host thread has none */
  /* NULL offsets: the values are the arguments. */
  assert_int_equal(exec_launch(dev, NULL, (void *)k12, args, NULL, 12, &ctx, NULL),
                   0);
  assert_ptr_equal(seen[11], buf + 11);
}

/* 100 arguments: beyond the cached call interfaces. */
static void *many_sum;
static void k_many(void *a0, ...) {
  /* x86-64 passes pointer varargs like fixed ones. */
  va_list ap;
  va_start(ap, a0);
  uintptr_t s = (uintptr_t)a0;
  for (int i = 1; i < 100; i++)
    s += (uintptr_t)va_arg(ap, void *);
  va_end(ap);
  many_sum = (void *)s;
}

static void test_ffi_many_args(void **state) {
  (void)state;
  void *args[100];
  uintptr_t want = 0;
  for (int i = 0; i < 100; i++) {
    args[i] = (void *)(uintptr_t)(i * 1000 + 1);
    want += (uintptr_t)args[i];
  }
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  assert_int_equal(exec_launch(dev, NULL, (void *)k_many, args, NULL, 100,
                               &ctx, NULL), 0);
  assert_ptr_equal(many_sum, (void *)want);
}

static int order[1000];
static _Atomic int norder;

static void k_append(void *v) {
  order[atomic_fetch_add(&norder, 1)] = (int)(intptr_t)v;
}

static void k_sleep(void *ms) {
  usleep((useconds_t)(uintptr_t)ms * 1000);
}

static void test_async_order(void **state) {
  (void)state;
  struct exec_stream *q = NULL;
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  void *a[1] = {NULL};
  ptrdiff_t o[1];
  atomic_store(&norder, 0);
  void *ms[1] = {(void *)(uintptr_t)20};
  assert_int_equal(exec_launch(dev, &q, (void *)k_sleep, ms, NULL, 1, &ctx, NULL),
                   0);
  assert_non_null(q); /* created on first use */
  for (int i = 0; i < 1000; i++) {
    o[0] = i; /* the argument's value is args[0] + offsets[0] = i */
    assert_int_equal(exec_launch(dev, &q, (void *)k_append, a, o, 1, &ctx, NULL), 0);
  }
  /* Copies queued behind the kernels are ordered after them. */
  int src = 42, dst = 0;
  assert_int_equal(exec_copy(dev, &q, &dst, &src, sizeof src), 0);
  assert_true(exec_pending(q)); /* the first kernel still sleeps */
  assert_int_equal(dst, 0);
  assert_int_equal(exec_sync(dev, &q, NULL), 0);
  assert_null(q);
  assert_int_equal(atomic_load(&norder), 1000);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(order[i], i);
  assert_int_equal(dst, 42);
  /* An idle queue copies on the calling thread at once. */
  struct exec_stream *q2 = NULL;
  src = 7;
  assert_int_equal(exec_copy(dev, &q2, &dst, &src, sizeof src), 0);
  assert_int_equal(dst, 7);
  assert_null(q2);
  assert_int_equal(exec_sync(dev, &q2, NULL), 0);
}

/* Commands of a running stream reuse its slots while the host keeps
 * queueing (some land in slots, some are malloc'd), with 12 arguments
 * each, so the worker frees the argument arrays it was handed. */
static long sum12;
static int sum_bad;
static void k_sum12(void *a0, void *a1, void *a2, void *a3, void *a4,
                    void *a5, void *a6, void *a7, void *a8, void *a9,
                    void *a10, void *a11) {
  intptr_t v[12] = {(intptr_t)a0, (intptr_t)a1, (intptr_t)a2, (intptr_t)a3,
                    (intptr_t)a4, (intptr_t)a5, (intptr_t)a6, (intptr_t)a7,
                    (intptr_t)a8, (intptr_t)a9, (intptr_t)a10, (intptr_t)a11};
  for (int i = 1; i < 12; i++)
    if (v[i] != v[0] + i)
      sum_bad = 1;
  if (v[0] != 12 * sum12)
    sum_bad = 1; /* out of order */
  sum12++;
}

static void test_async_slots(void **state) {
  (void)state;
  struct exec_stream *q = NULL;
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  void *args[12];
  sum12 = 0;
  sum_bad = 0;
  for (int round = 0; round < 3; round++) {
    for (int k = 0; k < 5000; k++) {
      long n = round * 5000L + k;
      for (int i = 0; i < 12; i++)
        args[i] = (void *)(intptr_t)(12 * n + i);
      assert_int_equal(
          exec_launch(dev, &q, (void *)k_sum12, args, NULL, 12, &ctx, NULL), 0);
      if (k % 1000 == 999)
        assert_int_equal(exec_drain(dev, &q, NULL), 0);
    }
    assert_int_equal(exec_sync(dev, &q, NULL), 0);
    assert_null(q);
    assert_int_equal(sum12, (round + 1) * 5000L);
  }
  assert_int_equal(sum_bad, 0);
}

static _Atomic int flag;
static int observed = -1;
static void k_set_flag(void *ms) {
  usleep((useconds_t)(uintptr_t)ms * 1000);
  atomic_store(&flag, 1);
}
static void k_observe(void) { observed = atomic_load(&flag); }

struct waiter_arg {
  struct exec_event *ev;
};

static void *waiter_thread(void *p) {
  struct waiter_arg *w = p;
  struct exec_stream *q = NULL;
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  /* This host thread's stream runs on the other worker. */
  exec_event_wait(dev, w->ev, &q);
  exec_launch(dev, &q, (void *)k_observe, NULL, NULL, 0, &ctx, NULL);
  exec_sync(dev, &q, NULL);
  return NULL;
}

static void test_events(void **state) {
  (void)state;
  struct exec_event *ev = exec_event_create();
  assert_non_null(ev);
  struct exec_stream *q = NULL;
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  void *ms[1] = {(void *)(uintptr_t)100};
  atomic_store(&flag, 0);
  assert_int_equal(exec_launch(dev, &q, (void *)k_set_flag, ms, NULL, 1, &ctx, NULL),
                   0);
  assert_int_equal(exec_event_record(dev, ev, &q), 0);
  struct waiter_arg wa = {ev};
  pthread_t t;
  pthread_create(&t, NULL, waiter_thread, &wa);
  pthread_join(t, NULL);
  assert_int_equal(observed, 1); /* the wait held the other queue back */
  assert_int_equal(exec_event_sync(ev), 0);
  assert_int_equal(exec_sync(dev, &q, NULL), 0);
  /* Record on an idle queue: reached at once. */
  assert_int_equal(exec_event_record(dev, ev, &q), 0);
  assert_int_equal(exec_event_sync(ev), 0);
  assert_int_equal(exec_event_destroy(ev), 0);
}

static void fn_store_ctx(void *arg) {
  struct emu_devctx *c = emu_current_ctx();
  *(int *)arg = c ? c->device : -1;
}

static void test_call(void **state) {
  (void)state;
  int got = -5;
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  assert_int_equal(exec_call(dev, fn_store_ctx, &got, &ctx), 0);
  assert_int_equal(got, 1);
  assert_int_equal(exec_call(dev, fn_store_ctx, &got, NULL), 0);
  assert_int_equal(got, -1);
}

/* OMPEMU_SERIAL: one worker, and even a synchronous copy waits for the
 * work queued before it. */
static void test_serial(void **state) {
  (void)state;
  struct exec_options o;
  exec_read_options(&o);
  o.serial = 1;
  o.workers = 1;
  struct exec_device *sd = exec_device_create(2, &o);
  assert_non_null(sd);
  struct exec_stream *q = NULL;
  struct emu_devctx ctx = {2, NULL, 0, 0, 0};
  void *ms[1] = {(void *)(uintptr_t)50};
  atomic_store(&flag, 0);
  assert_int_equal(exec_launch(sd, &q, (void *)k_set_flag, ms, NULL, 1, &ctx, NULL),
                   0);
  int src = 5, dst = 0;
  assert_int_equal(exec_copy(sd, NULL, &dst, &src, sizeof src), 0);
  assert_int_equal(atomic_load(&flag), 1); /* the copy ran after the kernel */
  assert_int_equal(dst, 5);
  assert_int_equal(exec_sync(sd, &q, NULL), 0);
  exec_device_destroy(sd);
}


/* exec_launch_here: on the calling thread when nothing can tell, else on
 * the caller's worker, after what is pending there. */
static pthread_t who;
static int who_saw_flag, who_ctx_dev;
static void k_who(void *a) {
  (void)a;
  who = pthread_self();
  who_saw_flag = atomic_load(&flag);
  struct emu_devctx *c = emu_current_ctx();
  who_ctx_dev = c ? c->device : -1;
}

static void *small_stack_launch(void *arg) {
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  void *a[1] = {NULL};
  *(int *)arg = exec_launch_here(dev, NULL, (void *)k_who, a, NULL, 1, &ctx,
                                 NULL, 0);
  return NULL;
}

static void test_launch_here(void **state) {
  (void)state;
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  void *a[1] = {NULL};
  struct exec_stream *q = NULL, *q2 = NULL;
  /* Idle: here, with the device context set only during the kernel. */
  assert_int_equal(exec_launch_here(dev, &q, (void *)k_who, a, NULL, 1, &ctx,
                                    NULL, 0), 0);
  assert_true(pthread_equal(who, pthread_self()));
  assert_int_equal(who_ctx_dev, 1);
  assert_null(emu_current_ctx());
  assert_null(q); /* nothing queued */
  /* Bound to the device's threads: on the worker. */
  assert_int_equal(exec_launch_here(dev, NULL, (void *)k_who, a, NULL, 1,
                                    &ctx, NULL, EXEC_THREAD_BOUND), 0);
  assert_false(pthread_equal(who, pthread_self()));
  /* Work pending on the same queue: behind it, on the worker. */
  void *ms[1] = {(void *)(uintptr_t)30};
  atomic_store(&flag, 0);
  assert_int_equal(exec_launch(dev, &q, (void *)k_set_flag, ms, NULL, 1, &ctx,
                               NULL), 0);
  assert_int_equal(exec_launch_here(dev, &q, (void *)k_who, a, NULL, 1, &ctx,
                                    NULL, 0), 0);
  assert_int_equal(exec_sync(dev, &q, NULL), 0);
  assert_false(pthread_equal(who, pthread_self()));
  assert_int_equal(who_saw_flag, 1);
  /* Work pending on another queue of the caller's worker: the same. */
  atomic_store(&flag, 0);
  assert_int_equal(exec_launch(dev, &q, (void *)k_set_flag, ms, NULL, 1, &ctx,
                               NULL), 0);
  assert_int_equal(exec_launch_here(dev, &q2, (void *)k_who, a, NULL, 1, &ctx,
                                    NULL, 0), 0);
  assert_int_equal(exec_sync(dev, &q2, NULL), 0);
  assert_false(pthread_equal(who, pthread_self()));
  assert_int_equal(who_saw_flag, 1);
  assert_int_equal(exec_sync(dev, &q, NULL), 0);
  /* A thread with less stack than the workers': on a worker. */
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstacksize(&at, 256 << 10);
  pthread_t th;
  int rc = -1;
  assert_int_equal(pthread_create(&th, &at, small_stack_launch, &rc), 0);
  pthread_join(th, NULL);
  pthread_attr_destroy(&at);
  assert_int_equal(rc, 0);
  assert_false(pthread_equal(who, th));
  /* Serial: always on the worker. */
  struct exec_options o;
  exec_read_options(&o);
  o.serial = 1;
  o.workers = 1;
  struct exec_device *sd = exec_device_create(3, &o);
  assert_non_null(sd);
  struct emu_devctx sctx = {3, NULL, 0, 0, 0};
  assert_int_equal(exec_launch_here(sd, NULL, (void *)k_who, a, NULL, 1, &sctx,
                                    NULL, 0), 0);
  assert_false(pthread_equal(who, pthread_self()));
  assert_int_equal(who_ctx_dev, 3);
  exec_device_destroy(sd);
}

static void k_empty(void *a);

/* A kernel that cannot start fails its synchronous launch with the reason,
 * or (queued) the drain and the sync of its queue, once; the queue's other
 * work still runs and the next use of the queue starts clean. */
static void test_kernel_faults(void **state) {
  (void)state;
  struct exec_fault f;
  memset(&f, 0, sizeof f);
  atomic_store(&flag, 0);
  assert_int_equal(exec_launch_failing(dev, NULL, (void *)k_set_flag,
                                       "planted", &f), -1);
  assert_ptr_equal(f.entry, (void *)k_set_flag);
  assert_string_equal(f.why, "planted");
  assert_int_equal(atomic_load(&flag), 0); /* it did not run */
  /* Without a place for the fault, exec reports it itself. */
  struct capture c;
  capture_begin(&c);
  int r = exec_launch_failing(dev, NULL, (void *)k_set_flag, "planted 2",
                              NULL);
  char *out = capture_end(&c);
  assert_int_equal(r, -1);
  assert_non_null(strstr(out, "emu: error: device 1: kernel 0x"));
  assert_non_null(strstr(out, "could not start: planted 2"));
  free(out);
  /* Queued: the launch is accepted, the queue carries the failure. */
  struct exec_stream *q = NULL;
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  void *ms[1] = {(void *)(uintptr_t)10};
  assert_int_equal(exec_launch(dev, &q, (void *)k_sleep, ms, NULL, 1, &ctx,
                               NULL), 0);
  assert_int_equal(exec_launch_failing(dev, &q, (void *)k_sleep, "first",
                                       NULL), 0);
  assert_int_equal(exec_launch_failing(dev, &q, (void *)k_empty, "second",
                                       NULL), 0);
  assert_int_equal(exec_launch(dev, &q, (void *)k_set_flag, ms, NULL, 1,
                               &ctx, NULL), 0);
  memset(&f, 0, sizeof f);
  assert_int_equal(exec_drain(dev, &q, &f), -1);
  assert_string_equal(f.why, "first"); /* the first failure is kept */
  assert_ptr_equal(f.entry, (void *)k_sleep);
  assert_int_equal(atomic_load(&flag), 1); /* later work ran */
  assert_non_null(q);
  memset(&f, 0, sizeof f);
  assert_int_equal(exec_sync(dev, &q, &f), -1);
  assert_string_equal(f.why, "first");
  assert_null(q);
  /* The released queue (kept as this thread's spare) starts clean. */
  assert_int_equal(exec_launch(dev, &q, (void *)k_sleep, ms, NULL, 1, &ctx,
                               NULL), 0);
  assert_int_equal(exec_sync(dev, &q, NULL), 0);
  /* exec_sync without a place for the fault reports it, once. */
  assert_int_equal(exec_launch_failing(dev, &q, (void *)k_sleep, "third",
                                       NULL), 0);
  capture_begin(&c);
  r = exec_sync(dev, &q, NULL);
  int r2 = exec_sync(dev, &q, NULL);
  out = capture_end(&c);
  assert_int_equal(r, -1);
  assert_int_equal(r2, 0);
  assert_non_null(strstr(out, "could not start: third"));
  assert_null(strstr(strstr(out, "third") + 1, "could not start"));
  free(out);
}

/* A device whose worker is running a kernel is not torn down (its worker
 * would be joined while it runs, maybe forever); once idle it is. */
static _Atomic int release_k;
static void k_wait_release(void *unused) {
  (void)unused;
  atomic_store(&flag, 2);
  while (!atomic_load(&release_k))
    usleep(1000);
}

static void test_destroy_busy(void **state) {
  (void)state;
  struct exec_options o;
  exec_read_options(&o);
  o.workers = 1;
  struct exec_device *bd = exec_device_create(3, &o);
  assert_non_null(bd);
  struct exec_stream *q = NULL;
  struct emu_devctx ctx = {3, NULL, 0, 0, 0};
  void *a[1] = {NULL};
  atomic_store(&flag, 0);
  atomic_store(&release_k, 0);
  assert_int_equal(exec_launch(bd, &q, (void *)k_wait_release, a, NULL, 1,
                               &ctx, NULL), 0);
  while (atomic_load(&flag) != 2)
    usleep(1000);
  assert_int_equal(exec_device_destroy(bd), -1);
  atomic_store(&release_k, 1);
  assert_int_equal(exec_sync(bd, &q, NULL), 0);
  assert_false(exec_on_worker());
  assert_int_equal(exec_device_destroy(bd), 0);
}

/* exec_new_cmd, wrapped (-Wl,--wrap; only exec_event.c's calls): armed, it
 * runs OTHER first, as if another host thread ran then, between the start
 * of a record and its command. */
struct cmd *__real_exec_new_cmd(struct exec_device *d, struct exec_stream **sp,
                                struct cmd *stack, enum cmd_kind kind);
static void (*other)(void);
struct cmd *__wrap_exec_new_cmd(struct exec_device *d, struct exec_stream **sp,
                                struct cmd *stack, enum cmd_kind kind) {
  void (*o)(void) = other;
  other = NULL;
  if (o)
    o();
  return __real_exec_new_cmd(d, sp, stack, kind);
}

static struct exec_device *race_dev;
static struct exec_event *race_ev;
static struct exec_stream *race_q;
static void wait_on_race_q(void) {
  exec_event_wait(race_dev, race_ev, &race_q);
}

/* A record publishes its generation only with its command queued: a wait
 * on another queue of the same worker that saw the generation earlier
 * queued its command ahead of the record's, and the worker waited for
 * itself forever (a hang at the next synchronisation).  In a child, with
 * a watchdog. */
static void test_event_record_wait_race(void **state) {
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    alarm(20);
    struct exec_options o;
    exec_read_options(&o);
    o.workers = 1;
    race_dev = exec_device_create(4, &o);
    race_ev = exec_event_create();
    if (!race_dev || !race_ev)
      _exit(2);
    struct exec_stream *q = NULL;
    struct emu_devctx ctx = {4, NULL, 0, 0, 0};
    void *a[1] = {NULL};
    atomic_store(&release_k, 0);
    if (exec_launch(race_dev, &q, (void *)k_wait_release, a, NULL, 1, &ctx,
                    NULL) != 0)
      _exit(3);
    other = wait_on_race_q;
    if (exec_event_record(race_dev, race_ev, &q) != 0)
      _exit(4);
    atomic_store(&release_k, 1);
    if (exec_sync(race_dev, &race_q, NULL) != 0 ||
        exec_sync(race_dev, &q, NULL) != 0 ||
        exec_event_destroy(race_ev) != 0 ||
        exec_device_destroy(race_dev) != 0)
      _exit(5);
    _exit(0);
  }
  int st = 0;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_false(WIFSIGNALED(st)); /* SIGALRM: it hung */
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

/* free, wrapped (-Wl,--wrap): WATCHED_EV is only noted as freed (and
 * kept, so an access after it stays harmless here). */
void __real_free(void *p);
static void *watched_ev;
static int ev_freed;
void __wrap_free(void *p) {
  if (p && p == watched_ev) {
    ev_freed = 1;
    return;
  }
  __real_free(p);
}

static void k_wait_on(void *flagp) {
  while (!atomic_load((_Atomic int *)flagp))
    usleep(100);
}

struct queue_wait {
  struct exec_device *d;
  struct exec_event *ev;
  struct exec_stream *q;
  _Atomic int *release;
};
static void *queue_wait_thread(void *arg) {
  struct queue_wait *a = arg;
  struct emu_devctx ctx = {5, NULL, 0, 0, 0};
  void *args[1] = {(void *)a->release};
  exec_launch(a->d, &a->q, (void *)k_wait_on, args, NULL, 1, &ctx, NULL);
  exec_event_wait(a->d, a->ev, &a->q);
  return NULL;
}

/* An event destroyed while another queue's wait for it is still queued
 * (behind a kernel) lives until that wait has run: it was freed at once
 * and the worker then locked freed memory. */
static void test_event_destroy_wait_queued(void **state) {
  (void)state;
  struct exec_options o;
  exec_read_options(&o);
  o.workers = 2;
  struct exec_device *bd = exec_device_create(5, &o);
  struct exec_event *ev = exec_event_create();
  assert_non_null(bd);
  assert_non_null(ev);
  static _Atomic int rel1, rel2;
  atomic_store(&rel1, 0);
  atomic_store(&rel2, 0);
  struct emu_devctx ctx = {5, NULL, 0, 0, 0};
  struct exec_stream *x = NULL; /* worker 0: this thread's */
  void *a1[1] = {(void *)&rel1};
  assert_int_equal(exec_launch(bd, &x, (void *)k_wait_on, a1, NULL, 1, &ctx,
                               NULL), 0);
  assert_int_equal(exec_event_record(bd, ev, &x), 0);
  /* Worker 1 (another host thread's): a kernel, then a wait for EV. */
  struct queue_wait qw = {bd, ev, NULL, &rel2};
  pthread_t t;
  pthread_create(&t, NULL, queue_wait_thread, &qw);
  pthread_join(t, NULL);
  atomic_store(&rel1, 1);
  assert_int_equal(exec_event_sync(ev), 0);
  watched_ev = ev;
  ev_freed = 0;
  assert_int_equal(exec_event_destroy(ev), 0);
  assert_int_equal(ev_freed, 0); /* the queued wait still points at it */
  atomic_store(&rel2, 1);
  assert_int_equal(exec_sync(bd, &qw.q, NULL), 0);
  assert_int_equal(ev_freed, 1);
  watched_ev = NULL;
  __real_free(ev);
  assert_int_equal(exec_sync(bd, &x, NULL), 0);
  assert_int_equal(exec_device_destroy(bd), 0);
}

/* An empty kernel, but counted: the latency test checks every launch ran. */
static _Atomic long nempty;
static void k_empty(void *a) {
  (void)a;
  atomic_fetch_add_explicit(&nempty, 1, memory_order_relaxed);
}

static long ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int cmp_long(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return x < y ? -1 : x > y;
}

/* Launch latency: the mean over all launches, and the best and median of
 * batches of 100 (the machine may be busy with other work). */
static void test_latency(void **state) {
  (void)state;
  struct emu_devctx ctx = {1, NULL, 0, 0, 0};
  void *a[1] = {NULL};
  int batches = getenv("OMPEMU_TEST_QUICK") ? 2 : 200;
  long *bt = calloc((size_t)batches, sizeof *bt);
  assert_non_null(bt);
  atomic_store(&nempty, 0);
  for (int i = 0; i < 100; i++)
    exec_launch(dev, NULL, (void *)k_empty, a, NULL, 1, &ctx, NULL);
  long t0 = ns();
  for (int b = 0; b < batches; b++) {
    long s0 = ns();
    for (int i = 0; i < 100; i++)
      exec_launch(dev, NULL, (void *)k_empty, a, NULL, 1, &ctx, NULL);
    bt[b] = (ns() - s0) / 100;
  }
  long t1 = ns();
  struct exec_stream *q = NULL;
  for (int i = 0; i < batches * 100; i++)
    exec_launch(dev, &q, (void *)k_empty, a, NULL, 1, &ctx, NULL);
  exec_sync(dev, &q, NULL);
  long t2 = ns();
  qsort(bt, (size_t)batches, sizeof *bt, cmp_long);
  printf("# sync empty launch: mean %ld ns, best batch %ld ns, median batch "
         "%ld ns; async (queued, one sync): %ld ns per launch (%d launches)\n",
         (t1 - t0) / (batches * 100), bt[0], bt[batches / 2],
         (t2 - t1) / (batches * 100), batches * 100);
  assert_true(bt[0] > 0);
  assert_int_equal(atomic_load(&nempty), 100 + 2L * batches * 100);
  free(bt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arg_counts),
      cmocka_unit_test(test_ffi_args),
      cmocka_unit_test(test_ffi_many_args),
      cmocka_unit_test(test_async_order),
      cmocka_unit_test(test_async_slots),
      cmocka_unit_test(test_events),
      cmocka_unit_test(test_call),
      cmocka_unit_test(test_serial),
      cmocka_unit_test(test_launch_here),
      cmocka_unit_test(test_kernel_faults),
      cmocka_unit_test(test_destroy_busy),
      cmocka_unit_test(test_event_record_wait_race),
      cmocka_unit_test(test_event_destroy_wait_queued),
      cmocka_unit_test(test_latency),
  };
  return cmocka_run_group_tests_name("emu exec", tests, setup, teardown);
}
