/* The timeline (LIBOMPTARGET_PROFILE=FILE, OMPEMU_TIMELINE=FILE): an
 * observer that records every observation point into the calling
 * thread's own buffer (no lock: one chunk of records is allocated every
 * TL_CHUNK events), and writes them as trace-event JSON at exit, on
 * rt_fatal and on a fatal signal (timeline_write.c; docs/observe.md).
 *
 * Bounded memory: each thread keeps at most OMPEMU_TIMELINE_EVENTS
 * records (default 262144, about 23 MiB); later ones are counted, not
 * kept, and the file and a warning at exit say how many were dropped. */
#define _GNU_SOURCE
#include "config.h"
#include "devevent.h"
#include "envvar.h"
#include "timeline.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static __thread struct tl_thread *self;
/* Per thread: recently interned string pointers. */
#define SCACHE 64
static __thread struct {
  const char *p;
  uint32_t idx;
} scache[SCACHE];

/* This thread's buffer, registered on first use; NULL if out of memory. */
static struct tl_thread *me(void) {
  if (self)
    return self;
  struct tl_thread *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->is_main = syscall(SYS_gettid) == getpid();
  pthread_getname_np(pthread_self(), t->os_name, sizeof t->os_name);
  pthread_mutex_lock(&tl.lock);
  struct tl_thread **pp = &tl.threads;
  int seq = 1;
  while (*pp) {
    pp = &(*pp)->next;
    seq++;
  }
  t->seq = seq;
  *pp = t;
  pthread_mutex_unlock(&tl.lock);
  self = t;
  return t;
}

/* The interned index of string S (0 for NULL or out of memory). */
static uint32_t intern(const char *s) {
  if (!s)
    return 0;
  unsigned h = (unsigned)(((uintptr_t)s >> 3) % SCACHE);
  if (scache[h].p == s)
    return scache[h].idx;
  uint32_t idx = 0;
  pthread_mutex_lock(&tl.lock);
  for (size_t i = tl.nstrs; i-- > 1;)
    if (!strcmp(tl.strs[i], s)) {
      idx = (uint32_t)i;
      break;
    }
  if (!idx) {
    if (tl.nstrs == tl.capstrs) {
      size_t n = tl.capstrs ? tl.capstrs * 2 : 256;
      char **v = realloc(tl.strs, n * sizeof *v);
      if (v) {
        tl.strs = v;
        tl.capstrs = n;
        if (!tl.nstrs)
          tl.strs[tl.nstrs++] = NULL;
      }
    }
    char *c = tl.nstrs < tl.capstrs ? strdup(s) : NULL;
    if (c) {
      idx = (uint32_t)tl.nstrs;
      tl.strs[tl.nstrs++] = c;
    }
  }
  pthread_mutex_unlock(&tl.lock);
  scache[h].p = s;
  scache[h].idx = idx;
  return idx;
}

/* A record slot of this thread's buffer, or NULL (dropped or no memory).
 * The caller fills it and calls publish. */
static struct tl_rec *slot(struct tl_thread *t) {
  size_t n = atomic_load_explicit(&t->count, memory_order_relaxed);
  if (n >= tl.max_records) {
    atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
    return NULL;
  }
  if (n % TL_CHUNK == 0) {
    struct tl_chunk *c = malloc(sizeof *c);
    if (!c) {
      atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
      return NULL;
    }
    c->next = NULL;
    if (t->last)
      t->last->next = c;
    else
      t->first = c;
    t->last = c;
  }
  return &t->last->rec[n % TL_CHUNK];
}

static void publish(struct tl_thread *t) {
  atomic_fetch_add_explicit(&t->count, 1, memory_order_release);
}

static const uint8_t type_of[OBS_NPOINTS] = {
    [OBS_REGION] = TL_REGION,       [OBS_ALLOC] = TL_ALLOC,
    [OBS_FREE] = TL_FREE,           [OBS_COPY_TO] = TL_COPY_TO,
    [OBS_COPY_FROM] = TL_COPY_FROM, [OBS_KERNEL] = TL_KERNEL,
    [OBS_WAIT] = TL_WAIT,           [OBS_MAP] = TL_MAP,
    [OBS_ASSOC] = TL_MAP,           [OBS_DEVICE_INIT] = TL_DEVICE_INIT,
    [OBS_IMAGE_LOAD] = TL_IMAGE,    [OBS_DEV_RUN] = TL_DEV_KERNEL,
    [OBS_DEV_WAIT] = TL_DEV_WAIT,
};

/* Fill R from E. */
static void fill_rec(struct tl_rec *r, const struct obs_event *e) {
  r->type = type_of[e->point];
  r->flags = e->result ? TL_FAILED : 0;
  r->device = (int16_t)e->device;
  r->worker = 0;
  r->t0 = e->t0;
  r->t1 = e->t1;
  r->id = e->id;
  r->link = e->region ? e->region->id : 0;
  r->hst = r->tgt = 0;
  r->size = 0;
  r->name = r->where = 0;
  r->r1 = r->r2 = 0;
  if (e->region && e->point != OBS_REGION)
    r->where = intern(e->region->loc ? e->region->loc->psource : NULL);
  switch (e->point) {
  case OBS_REGION:
    r->worker = (int32_t)e->rkind;
    r->where = intern(e->loc ? e->loc->psource : NULL);
    if (e->nowait)
      r->flags |= TL_NOWAIT;
    break;
  case OBS_ALLOC:
  case OBS_FREE:
  case OBS_COPY_TO:
  case OBS_COPY_FROM:
    r->hst = e->hst;
    r->tgt = e->tgt;
    r->size = e->size;
    r->name = intern(e->var);
    if (e->point != OBS_ALLOC && e->point != OBS_FREE && e->queued)
      r->flags |= TL_QUEUED;
    break;
  case OBS_KERNEL:
    r->tgt = (uintptr_t)e->entry;
    r->size = (int64_t)e->trips;
    r->name = intern(e->kernel);
    r->r1 = (uint64_t)e->teams;
    r->r2 = (uint64_t)e->threads;
    r->flags |= (e->nowait ? TL_NOWAIT : 0) | (e->queued ? TL_QUEUED : 0);
    break;
  case OBS_WAIT:
    r->link = e->completes;
    break;
  case OBS_MAP:
  case OBS_ASSOC:
    r->worker = (int32_t)e->decision;
    r->hst = e->hst;
    r->tgt = e->tgt;
    r->size = e->size;
    r->name = intern(e->var);
    r->r1 = e->dyn_ref;
    r->r2 = e->hold_ref;
    break;
  case OBS_DEVICE_INIT: {
    struct rt_device *d = rt_device_get(e->device);
    r->name = intern(d ? d->plugin->name : NULL);
    break;
  }
  case OBS_IMAGE_LOAD:
    r->hst = e->hst;
    r->size = e->size;
    r->worker = e->image_index;
    break;
  case OBS_DEV_RUN:
  case OBS_DEV_WAIT:
    if (e->dev_kind == OMPEMU_DEVEV_COPY)
      r->type = TL_DEV_COPY;
    r->worker = e->worker;
    r->tgt = (uintptr_t)e->entry;
    r->size = e->size;
    r->link = 0;
    break;
  default:
    break;
  }
}

/* Change T's open events (the owner thread only): a sequence lock for
 * the fatal-signal reader (open_snapshot, timeline_write.c). */
static void open_change_begin(struct tl_thread *t) {
  unsigned g = atomic_load_explicit(&t->open_gen, memory_order_relaxed);
  atomic_store_explicit(&t->open_gen, g + 1, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
}

static void open_change_end(struct tl_thread *t) {
  unsigned g = atomic_load_explicit(&t->open_gen, memory_order_relaxed);
  atomic_store_explicit(&t->open_gen, g + 1, memory_order_release);
}

/* Pairs are recorded at their end, with both times; at their begin they
 * are noted as open, so that a timeline written on a fatal signal shows
 * them as unfinished (the kernel that faulted, the construct and the wait
 * around it), whichever thread faults first. */
static int tl_event(struct obs_event *e, enum obs_phase ph) {
  struct tl_thread *t = me();
  if (!t)
    return 0;
  if (ph == OBS_PH_BEGIN) {
    int n = atomic_load_explicit(&t->nopen, memory_order_relaxed);
    if (n < TL_OPEN) {
      open_change_begin(t);
      fill_rec(&t->open[n], e);
      atomic_store_explicit(&t->nopen, n + 1, memory_order_relaxed);
      open_change_end(t);
    }
    return 0;
  }
  struct tl_rec *r = slot(t);
  if (r) {
    fill_rec(r, e);
    publish(t);
  }
  if (ph != OBS_PH_END)
    return 0;
  /* Published before it is closed: a reader that takes the open events
   * first, then the count, sees it at least once (tl_write drops the
   * copy it sees twice). */
  int n = atomic_load_explicit(&t->nopen, memory_order_relaxed);
  for (int i = n; i-- > 0;)
    if (t->open[i].id == e->id) {
      open_change_begin(t);
      memmove(&t->open[i], &t->open[i + 1], (size_t)(n - 1 - i) * sizeof *r);
      atomic_store_explicit(&t->nopen, n - 1, memory_order_relaxed);
      open_change_end(t);
      break;
    }
  return 0;
}

/* ---- fatal signals ---- */

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_actions[NFATAL];

/* Write what was recorded, put the previous handler back and let the
 * signal do what it did before: a fault re-executes the faulting
 * instruction, which meets the previous handler; SIGABRT is raised
 * again. */
static void on_fatal_signal(int sig) {
  obs_fatal();
  for (size_t i = 0; i < NFATAL; i++)
    if (fatal_signals[i] == sig) {
      sigaction(sig, &old_actions[i], NULL);
      break;
    }
  if (sig == SIGABRT)
    raise(sig);
}

static void catch_fatal_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NODEFER;
  for (size_t i = 0; i < NFATAL; i++)
    sigaction(fatal_signals[i], &sa, &old_actions[i]);
}

/* ---- set-up ---- */

static void tl_finish(int fatal) { tl_write(fatal); }

static struct obs_observer timeline_observer = {
    .name = "timeline",
    .points = OBS_BIT(OBS_REGION) | OBS_BIT(OBS_ALLOC) | OBS_BIT(OBS_FREE) |
              OBS_BIT(OBS_COPY_TO) | OBS_BIT(OBS_COPY_FROM) |
              OBS_BIT(OBS_KERNEL) | OBS_BIT(OBS_WAIT) | OBS_BIT(OBS_MAP) |
              OBS_BIT(OBS_ASSOC) | OBS_BIT(OBS_DEVICE_INIT) |
              OBS_BIT(OBS_IMAGE_LOAD) | OBS_BIT(OBS_DEV_RUN) |
              OBS_BIT(OBS_DEV_WAIT),
    .timed = 1,
    .event = tl_event,
    .finish = tl_finish,
};

void obs_timeline_setup(void) {
  const char *var = "OMPEMU_TIMELINE";
  const char *path = getenv(var);
  if (!path || !*path) {
    var = "LIBOMPTARGET_PROFILE";
    path = getenv(var);
  }
  if (!path || !*path)
    return;
  long long n;
  ompemu_env_int("OMPEMU_TIMELINE_EVENTS", 262144, 1024, 1LL << 30, &n);
  tl.max_records = (size_t)n;
  tl.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (tl.fd < 0) {
    ompemu_error("ompemu", "cannot open %s file '%s': no timeline is "
                 "written", var, path);
    return;
  }
  tl.path = path;
  tl.pid = getpid();
  tl.base = obs_now();
  if (obs_register(&timeline_observer) == 0)
    catch_fatal_signals();
}
