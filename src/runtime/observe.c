/* The observation layer (observe.h): the observers, each event handed to
 * those that want its point, the per-thread context (the construct a
 * thread is in, the variable its next copy is for, the operation the
 * plugin is queueing), ids, the device-event sink the emu plugin calls
 * (ompemu_event_sink, src/common/devevent.h), and the end of the process
 * (normal exit, rt_fatal's abort).  Which observers exist is decided in
 * observers.c. */
#define _GNU_SOURCE
#include "config.h"
#include "devevent.h"
#include "observe.h"
#include "locstr.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_OBSERVERS 8
/* Plugins whose device events are on; the tag they echo is index + 1. */
#define MAX_TAGS 16

uint32_t obs_mask;
uint32_t obs_decisions;
static _Atomic int shut_down;
static const struct obs_observer *observers[MAX_OBSERVERS];
static int nobservers;
static int timed; /* some observer reads t0 / t1 */
static int ids;   /* some observer reads ids */
/* The lone observer's ON, while there is one observer and it has ON: the
 * events call into it with no look-up of the observer. */
static const obs_fn (*lone)[3];
static _Atomic int finished;

/* Per thread: the construct it is in, the variable its next ALLOC or COPY
 * is for, the operation in progress (for the plugin's QUEUED event), the
 * last kernel left on a queue (for the WAIT that completes it). */
static __thread struct obs_tl {
  void *slots[MAX_OBSERVERS]; /* the events' SLOTS */
  struct obs_event *cur_region;
  const char *next_var;
  uintptr_t next_hst;
  int64_t next_size;
  uint64_t cur_op;
  uint64_t pending_kernel;
  uint64_t thread_seq, thread_ids;
  struct {
    void **args;
    ptrdiff_t *offs;
    int32_t n;
    const struct rt_args *maps;
    const int *argpos;
  } next_kernel;
} tl; /* one struct: one thread-local look-up per function, not per variable */
static _Atomic uint64_t nthreads;

static struct {
  int32_t first_id; /* global id of the plugin's local device 0 */
} tags[MAX_TAGS];
static int ntags;
static pthread_mutex_t tag_lock = PTHREAD_MUTEX_INITIALIZER;

int obs_register(const struct obs_observer *o) {
  if (nobservers == MAX_OBSERVERS) {
    ompemu_error("ompemu", "too many observers: %s is off", o->name);
    return -1;
  }
  int slot = nobservers;
  observers[slot] = o;
  if (o->timed)
    __atomic_store_n(&timed, 1, __ATOMIC_RELEASE);
  if (!o->no_ids)
    __atomic_store_n(&ids, 1, __ATOMIC_RELEASE);
  uint32_t points = o->points;
  if (o->on) {
    points = 0;
    for (int p = 0; p < OBS_NPOINTS; p++)
      for (int ph = 0; ph < 3; ph++)
        if (o->on[p][ph])
          points |= OBS_BIT(p);
  }
  if (points & (OBS_BIT(OBS_MAP) | OBS_BIT(OBS_ASSOC)))
    __atomic_fetch_or(&obs_decisions, o->decisions ? o->decisions : ~0u,
                      __ATOMIC_RELEASE);
  __atomic_store_n(&lone, slot == 0 ? o->on : NULL, __ATOMIC_RELEASE);
  __atomic_store_n(&nobservers, slot + 1, __ATOMIC_RELEASE);
  __atomic_fetch_or(&obs_mask, points, __ATOMIC_RELEASE);
  if (o->slot)
    *o->slot = slot;
  return 0;
}

int64_t obs_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* This thread's struct, looked up once by the caller (GCC would look it
 * up again after each call). */
static inline struct obs_tl *me(void) {
  struct obs_tl *t = &tl;
  __asm__("" : "+r"(t));
  return t;
}

/* Ids: the thread's number (in the order threads first ask) in the high
 * bits, its own count in the low ones, so a thread's ids are the same in
 * every run whatever the other threads do. */
static uint64_t new_id(struct obs_tl *t) {
  if (!t->thread_seq)
    t->thread_seq = atomic_fetch_add(&nthreads, 1) + 1;
  return t->thread_seq << 40 | ++t->thread_ids;
}

uint64_t obs_new_id(void) { return new_id(me()); }

uint64_t obs_current_op(void) { return tl.cur_op; }

/* Whether O wants phase PH of point P, and the call. */
static int wants(const struct obs_observer *o, enum obs_point p,
                 enum obs_phase ph) {
  if (o->on)
    return o->on[p][ph] != NULL;
  uint32_t bit = OBS_BIT(p);
  return (o->points & bit) && !(ph == OBS_PH_BEGIN && (o->no_begin & bit));
}

static int call(const struct obs_observer *o, struct obs_event *e,
                enum obs_phase ph) {
  return o->on ? o->on[e->point][ph](e) : o->event(e, ph);
}

/* E was vetoed at its begin. */
static int veto(struct obs_event *e) {
  e->result = -1;
  e->vetoed = 1;
  e->t1 = e->t0;
  return 1;
}

/* dispatch without a lone observer that has ON. */
static __attribute__((noinline)) int dispatch_all(struct obs_event *e,
                                                  enum obs_phase ph) {
  int n = nobservers;
  for (int i = 0; i < n; i++) {
    const struct obs_observer *o = observers[i];
    if (!wants(o, e->point, ph))
      continue;
    if (call(o, e, ph) && ph == OBS_PH_BEGIN) {
      veto(e);
      for (int j = 0; j < i; j++)
        if (wants(observers[j], e->point, OBS_PH_BEGIN) &&
            wants(observers[j], e->point, OBS_PH_END))
          call(observers[j], e, OBS_PH_END);
      return 1;
    }
  }
  return 0;
}

/* Hand E to every observer of its point; at BEGIN stop at a veto, giving
 * those already called an END with result -1.  1 if vetoed.  Inline, for
 * each phase: the lone observer's function is called without a frame of
 * the layer's own in between. */
static inline __attribute__((always_inline)) int
dispatch(struct obs_event *e, enum obs_phase ph) {
  const obs_fn(*on)[3] = lone; /* the checker, alone */
  if (__builtin_expect(!on, 0))
    return dispatch_all(e, ph);
  obs_fn f = on[e->point][ph];
  if (!f)
    return 0;
  return f(e) && ph == OBS_PH_BEGIN ? veto(e) : 0;
}

/* The fields every event has.  fill, begin and end are inline in each
 * obs_* function: one call per event from the hook to the observer. */
static inline __attribute__((always_inline)) void
fill(struct obs_tl *t, struct obs_event *e, enum obs_point p,
     struct rt_device *d) {
  e->point = p;
  e->device = d ? d->id : -1;
  e->id = ids ? new_id(t) : 0;
  e->result = 0;
  e->vetoed = 0;
  e->region = t->cur_region;
  e->note = NULL;
  e->ompt_op = 0;
  e->slots = t->slots;
  e->thread = t;
  e->t0 = e->t1 = timed ? obs_now() : 0;
}

static inline __attribute__((always_inline)) int
begin(struct obs_tl *t, struct obs_event *e, enum obs_point p,
      struct rt_device *d) {
  fill(t, e, p, d);
  return dispatch(e, OBS_PH_BEGIN);
}

int obs_begin(struct obs_event *e, enum obs_point p, struct rt_device *d) {
  return begin(me(), e, p, d);
}

static inline __attribute__((always_inline)) void
end(struct obs_tl *t, struct obs_event *e, int result) {
  if (e->vetoed)
    return; /* its observers had their end at the veto */
  if (timed)
    e->t1 = obs_now();
  e->result = result ? -1 : 0;
  if (e->point == OBS_COPY_TO || e->point == OBS_COPY_FROM)
    t->cur_op = 0;
  dispatch(e, OBS_PH_END);
}

void obs_end(struct obs_event *e, int result) { end(e->thread, e, result); }

void obs_instant(struct obs_event *e, enum obs_point p, struct rt_device *d) {
  fill(me(), e, p, d);
  dispatch(e, OBS_PH_INSTANT);
}

int obs_region_begin(struct obs_event *e, enum obs_region_kind k,
                     struct rt_device *d, ident_t *loc, int nowait) {
  struct obs_tl *t = me();
  e->rkind = k;
  e->loc = loc;
  e->nowait = nowait;
  if (begin(t, e, OBS_REGION, d))
    return 1;
  t->cur_region = e;
  return 0;
}

void obs_region_end(struct obs_event *e, int result) {
  struct obs_tl *t = e->thread;
  t->cur_region = (struct obs_event *)e->region;
  t->pending_kernel = 0;
  end(t, e, result);
}

void obs_set_var(const char *var, uintptr_t hst, int64_t size) {
  struct obs_tl *t = me();
  t->next_var = var;
  t->next_hst = hst;
  t->next_size = size;
}

/* The variable set by OBS_VAR for this operation (then forgotten). */
static const char *take_var(struct obs_tl *t) {
  const char *v = t->next_var;
  t->next_var = NULL;
  return v;
}

int obs_alloc(struct obs_event *e, struct rt_device *d, int64_t size,
              void *hst) {
  struct obs_tl *t = me();
  e->size = size;
  e->hst = (uintptr_t)hst;
  e->tgt = 0;
  e->var = take_var(t);
  return begin(t, e, OBS_ALLOC, d);
}

int obs_free(struct obs_event *e, struct rt_device *d, void *tgt) {
  struct obs_tl *t = me();
  e->tgt = (uintptr_t)tgt;
  e->hst = t->next_hst;
  e->size = t->next_size;
  t->next_hst = 0;
  t->next_size = 0;
  e->var = take_var(t);
  return begin(t, e, OBS_FREE, d);
}

int obs_copy(struct obs_event *e, enum obs_point p, struct rt_device *d,
             const void *hst, const void *tgt, int64_t size) {
  struct obs_tl *t = me();
  e->hst = (uintptr_t)hst;
  e->tgt = (uintptr_t)tgt;
  e->size = size;
  e->var = take_var(t);
  e->queued = 0;
  if (begin(t, e, p, d))
    return 1;
  t->cur_op = e->id;
  return 0;
}

int obs_kernel(struct obs_event *e, struct rt_device *d, const char *name,
               void *entry, int32_t teams, int32_t threads, uint64_t trips,
               int nowait) {
  struct obs_tl *t = me();
  e->kernel = name;
  e->entry = entry;
  e->teams = teams;
  e->threads = threads;
  e->trips = trips;
  e->nowait = nowait;
  e->queued = 0;
  e->args = t->next_kernel.args;
  e->offs = t->next_kernel.offs;
  e->nargs = t->next_kernel.n;
  e->maps = t->next_kernel.maps;
  e->argpos = t->next_kernel.argpos;
  memset(&t->next_kernel, 0, sizeof t->next_kernel);
  if (begin(t, e, OBS_KERNEL, d))
    return 1;
  t->cur_op = e->id;
  return 0;
}

void obs_set_kernel_args(void **args, ptrdiff_t *offs, int32_t n,
                         const struct rt_args *maps, const int *argpos) {
  struct obs_tl *t = me();
  t->next_kernel.args = args;
  t->next_kernel.offs = offs;
  t->next_kernel.n = n;
  t->next_kernel.maps = maps;
  t->next_kernel.argpos = argpos;
}

void obs_kernel_end(struct obs_event *e, int result, int queued) {
  struct obs_tl *t = e->thread;
  t->cur_op = 0;
  e->queued = queued && result == 0;
  if (e->queued)
    t->pending_kernel = e->id;
  end(t, e, result);
}

int obs_wait(struct obs_event *e, struct rt_device *d) {
  struct obs_tl *t = me();
  e->completes = t->pending_kernel;
  t->pending_kernel = 0;
  return begin(t, e, OBS_WAIT, d);
}

void obs_map(struct rt_device *d, enum obs_map_decision what, uintptr_t hst,
             uintptr_t tgt, int64_t size, const char *var, uint64_t dyn_ref,
             uint64_t hold_ref, int64_t maptype) {
  enum obs_point p =
      what == OBS_MAP_ASSOC || what == OBS_MAP_DISASSOC ? OBS_ASSOC : OBS_MAP;
  if (!OBS_WANTS(p))
    return;
  struct obs_event e;
  e.decision = what;
  e.hst = hst;
  e.tgt = tgt;
  e.size = size;
  e.var = var;
  e.dyn_ref = dyn_ref;
  e.hold_ref = hold_ref;
  e.maptype = maptype;
  obs_instant(&e, p, d);
}

/* ---- devices, images, device events ---- */

void obs_start_device_events(struct rt_device *d) {
  struct rt_plugin *p = d->plugin;
  if (!p->ompemu_observe)
    return;
  pthread_mutex_lock(&tag_lock);
  int t;
  for (t = 0; t < ntags; t++)
    if (tags[t].first_id == p->first_id)
      break;
  int fresh = t == ntags;
  if (fresh && ntags < MAX_TAGS)
    tags[ntags++].first_id = p->first_id;
  pthread_mutex_unlock(&tag_lock);
  if (!fresh || t == MAX_TAGS)
    return;
  if (p->ompemu_observe(OMPEMU_OBSERVE_DEVICE, (void *)(uintptr_t)(t + 1)) !=
      OFFLOAD_SUCCESS)
    RT_TRACE(1, "plugin %s sends no device events", p->name);
}

void obs_device_init(struct rt_device *d) {
  if (OBS_WANTS(OBS_DEV_RUN) || OBS_WANTS(OBS_DEV_WAIT))
    obs_start_device_events(d);
  if (OBS_WANTS(OBS_DEVICE_INIT)) {
    struct obs_event e;
    obs_instant(&e, OBS_DEVICE_INIT, d);
  }
}

/* Images already reported: (device, loaded image) pairs. */
static struct seen {
  int32_t dev;
  const void *loaded;
} *seen;
static size_t nseen, capseen;
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static int seen_add(int32_t dev, const void *x) {
  for (size_t i = 0; i < nseen; i++)
    if (seen[i].dev == dev && seen[i].loaded == x)
      return 0;
  if (nseen == capseen) {
    size_t n = capseen ? capseen * 2 : 16;
    struct seen *s = realloc(seen, n * sizeof *s);
    if (!s)
      return 0;
    seen = s;
    capseen = n;
  }
  seen[nseen++] = (struct seen){dev, x};
  return 1;
}

void obs_images(struct rt_device *d) {
  enum { MAXNEW = 64, MAXDEV = 64 };
  /* The newest loaded image of each device when last looked at: most
   * constructs find it unchanged and take no lock. */
  static const void *last[MAXDEV];
  const void *head = __atomic_load_n(&d->loaded, __ATOMIC_ACQUIRE);
  if (d->id >= 0 && d->id < MAXDEV) {
    if (__atomic_load_n(&last[d->id], __ATOMIC_RELAXED) == head)
      return;
    __atomic_store_n(&last[d->id], head, __ATOMIC_RELAXED);
  }
  struct {
    __tgt_device_image *img;
    int index;
  } fresh[MAXNEW];
  int n = 0;
  /* The loaded list changes under D's lock (and the index lock). */
  pthread_mutex_lock(&d->lock);
  pthread_mutex_lock(&seen_lock);
  for (struct rt_loaded *x = d->loaded; x && n < MAXNEW; x = x->next)
    if (seen_add(d->id, x)) {
      fresh[n].img = x->image->image;
      fresh[n].index = x->image->index;
      n++;
    }
  pthread_mutex_unlock(&seen_lock);
  pthread_mutex_unlock(&d->lock);
  /* The list is newest first: report in load order. */
  while (n-- > 0) {
    struct obs_event e;
    e.hst = (uintptr_t)fresh[n].img->ImageStart;
    e.size = (char *)fresh[n].img->ImageEnd - (char *)fresh[n].img->ImageStart;
    e.tgt = 0;
    e.image_index = fresh[n].index;
    obs_instant(&e, OBS_IMAGE_LOAD, d);
  }
}

RT_EXPORT uint64_t ompemu_event_sink(const struct ompemu_devev *ev) {
  if (!obs_mask || !ev || ev->size < sizeof *ev)
    return 0;
  if (ev->kind == OMPEMU_DEVEV_QUEUED)
    return tl.cur_op;
  uintptr_t t = (uintptr_t)ev->tag;
  if (t < 1 || t > (uintptr_t)ntags)
    return 0;
  enum obs_point p = ev->kind == OMPEMU_DEVEV_WAIT ? OBS_DEV_WAIT : OBS_DEV_RUN;
  if (!OBS_WANTS(p))
    return 0;
  struct obs_event e;
  e.point = p;
  e.device = tags[t - 1].first_id + ev->device;
  e.id = ev->id;
  e.t0 = ev->t0_ns;
  e.t1 = ev->t1_ns;
  e.result = 0;
  e.region = NULL;
  e.note = NULL;
  e.slots = tl.slots;
  e.thread = &tl;
  e.worker = ev->worker;
  e.dev_kind = (int)ev->kind;
  e.entry = (void *)ev->entry;
  e.size = (int64_t)ev->bytes;
  dispatch(&e, OBS_PH_INSTANT);
  return 0;
}

/* ---- the end of the process ---- */

void obs_finish(int fatal) {
  if (atomic_exchange(&finished, 1))
    return;
  for (int i = 0; i < nobservers; i++)
    if (observers[i]->finish)
      observers[i]->finish(fatal);
}

void obs_fatal(void) { obs_finish(1); }

void obs_shutdown(void) {
  if (atomic_exchange(&shut_down, 1))
    return;
  struct obs_event e;
  obs_instant(&e, OBS_SHUTDOWN, NULL);
}

/* ---- helpers for observers ---- */

static int line_field(const char *s) {
  char b[32];
  return loc_field(s, 2, b, sizeof b) ? atoi(b) : 0;
}

/* The base name of FILE_FIELD of S into BUF ("unknown" if none). */
static const char *file_field(const char *s, int fieldno, char *buf,
                              size_t len) {
  char path[512];
  if (!loc_field(s, fieldno, path, sizeof path) || !path[0]) {
    snprintf(buf, len, "unknown");
    return buf;
  }
  const char *slash = strrchr(path, '/');
  snprintf(buf, len, "%s", slash ? slash + 1 : path);
  return buf;
}

/* Map names are location strings (locstr.h); a declare-target global's
 * mapping carries its entry name instead. */
const char *obs_var_expr(const char *var, char *buf, size_t len) {
  if (var && var[0] && var[0] != ';')
    snprintf(buf, len, "%s", var);
  else if (!map_name_expr(var, buf, len))
    snprintf(buf, len, "unknown");
  return buf;
}

int obs_var_line(const char *var) { return line_field(var); }

const char *obs_var_where(const char *var, char *buf, size_t len) {
  char file[256];
  if (var && var[0] && var[0] != ';')
    snprintf(buf, len, "declare target");
  else
    snprintf(buf, len, "%s:%d",
             file_field(var, map_name_file_field(var), file, sizeof file),
             line_field(var));
  return buf;
}

int obs_loc_line(const ident_t *loc) {
  return loc ? line_field(loc->psource) : 0;
}

const char *obs_loc_file(const ident_t *loc, char *buf, size_t len) {
  return file_field(loc ? loc->psource : NULL, 0, buf, len);
}
