/* The timeline's writer: everything recorded (timeline.c) as one
 * trace-event JSON object (the format Perfetto's UI and chrome://tracing
 * read; docs/observe.md):
 *   pid 1 "host": one track per host thread, main thread first, then in
 *   the order threads first reported something; pid 2+D "<plugin> device
 *   D": one track per device worker.  Complete ("X") events for
 *   constructs, allocations, frees, copies, kernel submits, kernels on
 *   their worker and waits; instants ("i") for map decisions, device
 *   starts and image loads; a flow ("s", "t", "f") from each kernel's
 *   submit to its run on the device and to the wait that completed it.
 * The events, their order, names, arguments and flow ids depend only on
 * what each thread did (ids are renumbered in writing order), so two runs
 * of a program whose threads do the same give the same file apart from
 * "ts" and "dur".  Written with write(2) from a fixed buffer, so that the
 * fatal paths can use it too. */
#define _GNU_SOURCE
#include "config.h"
#include "devevent.h"
#include "timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tl_state tl = {.fd = -1, .lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- output ---- */

static struct {
  char buf[1 << 16];
  size_t n;
  int failed;
} o;

static void flush_out(void) {
  size_t off = 0;
  while (off < o.n && !o.failed) {
    ssize_t w = write(tl.fd, o.buf + off, o.n - off);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      o.failed = 1;
    else
      off += (size_t)w;
  }
  o.n = 0;
}

static void put(const char *s, size_t len) {
  if (o.n + len <= sizeof o.buf) {
    memcpy(o.buf + o.n, s, len);
    o.n += len;
    return;
  }
  while (len) {
    if (o.n == sizeof o.buf)
      flush_out();
    size_t k = sizeof o.buf - o.n < len ? sizeof o.buf - o.n : len;
    memcpy(o.buf + o.n, s, k);
    o.n += k;
    s += k;
    len -= k;
  }
}

static void puts_(const char *s) { put(s, strlen(s)); }

static void putf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void putf(const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0)
    put(tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* S as a JSON string, quotes included: runs of plain characters in one
 * piece, the others escaped. */
static void put_str(const char *s) {
  put("\"", 1);
  for (; s && *s; s++) {
    size_t run = 0;
    while (s[run] && s[run] != '"' && s[run] != '\\' &&
           (unsigned char)s[run] >= 0x20)
      run++;
    if (run) {
      put(s, run);
      s += run - 1;
      continue;
    }
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      put(e, 2);
    } else if (c < 0x20) {
      putf("\\u%04x", c);
    } else {
      put((const char *)&c, 1);
    }
  }
  put("\"", 1);
}

/* Numbers without printf (the writer formats millions of them). */
static void put_u64(uint64_t v) {
  char b[24];
  int i = sizeof b;
  do {
    b[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  put(b + i, sizeof b - (size_t)i);
}

static void put_i64(int64_t v) {
  if (v < 0) {
    put("-", 1);
    put_u64((uint64_t)0 - (uint64_t)v);
  } else {
    put_u64((uint64_t)v);
  }
}

/* "0x%016lx", quoted. */
static void put_addr(uintptr_t v) {
  char b[20] = "\"0x";
  for (int i = 0; i < 16; i++)
    b[3 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
  b[19] = '"';
  put(b, sizeof b);
}

/* KEY (already quoted, with its colon and leading comma) and a number. */
static void put_kv(const char *key, int64_t v) {
  puts_(key);
  put_i64(v);
}

/* A time in microseconds with nanosecond digits. */
static void put_us(int64_t ns) {
  if (ns < 0)
    ns = 0;
  char frac[4] = {'.', (char)('0' + ns % 1000 / 100),
                  (char)('0' + ns % 100 / 10), (char)('0' + ns % 10)};
  put_u64((uint64_t)(ns / 1000));
  put(frac, 4);
}

static int names_ok;
static const char *str(uint32_t i) {
  return names_ok && i && i < tl.nstrs ? tl.strs[i] : NULL;
}

/* ---- the records ---- */

struct track {
  struct tl_thread *t;
  size_t count;
  /* On a fatal signal: the events T had begun and not ended. */
  struct tl_rec extra[TL_OPEN];
  size_t nextra;
  int tid; /* host: 1, 2, ... */
  /* What the thread did first (the construct's source, the name of what
   * it touched): orders the tracks of threads that raced to register. */
  const char *first_where, *first_name;
};

/* A host record found by id: KERNEL and COPY records (for the device
 * events that name them), with the flow number of a KERNEL. */
struct by_id {
  uint64_t id;
  const struct tl_rec *r;
  int tid;
  int flow; /* 0: none */
};

static int cmp_id(const void *a, const void *b) {
  uint64_t x = ((const struct by_id *)a)->id, y = ((const struct by_id *)b)->id;
  return x < y ? -1 : x > y;
}

static struct by_id *find(struct by_id *v, size_t n, uint64_t id) {
  struct by_id key = {.id = id};
  return id ? bsearch(&key, v, n, sizeof *v, cmp_id) : NULL;
}

static const char *region_name(const struct tl_rec *r) {
  static const char *names[] = {"?", "target", "target enter data",
                                "target exit data", "target update"};
  int k = r->worker >= 1 && r->worker <= 4 ? r->worker : 0;
  return names[k];
}

static const char *decision_name(int d) {
  static const char *names[] = {"new",       "exists",       "decrement",
                                "remove",    "associate",    "disassociate",
                                "absent",    "unmapped pointer", "refused"};
  return d >= 0 && d < 9 ? names[d] : "?";
}

/* What the writer derives from an interned string, computed once per
 * string: a map name's expression, a psource's "file:line". */
static char **exprs, **wheres;
static size_t nderived;

static const char *derived(char **cache, uint32_t i, int is_where) {
  const char *s = str(i);
  if (!s)
    return is_where ? "unknown" : "?";
  if (i < nderived && cache[i])
    return cache[i];
  char buf[300];
  if (is_where) {
    ident_t loc = {.psource = (char *)s};
    char file[256];
    snprintf(buf, sizeof buf, "%s:%d", obs_loc_file(&loc, file, sizeof file),
             obs_loc_line(&loc));
  } else {
    obs_var_expr(s, buf, sizeof buf);
  }
  if (i >= nderived)
    return is_where ? "unknown" : "?";
  cache[i] = strdup(buf);
  return cache[i] ? cache[i] : "?";
}

/* The expression of a map name (";expr;file;line;col;;"), or "?". */
static const char *var_expr(uint32_t name) { return derived(exprs, name, 0); }
/* "file:line" of a psource string (";file;func;line;col;;"). */
static const char *where(uint32_t psource) {
  return derived(wheres, psource, 1);
}

/* The head of an event: name, category, phase, track, time. */
static void head(const char *name, const char *cat, const char *ph, int pid,
                 int tid, int64_t t0) {
  puts_(",\n{\"name\":");
  put_str(name);
  puts_(",\"cat\":\"");
  puts_(cat);
  puts_("\",\"ph\":\"");
  puts_(ph);
  put_kv("\",\"pid\":", pid);
  put_kv(",\"tid\":", tid);
  puts_(",\"ts\":");
  put_us(t0 - tl.base);
}

static void dur(const struct tl_rec *r) {
  puts_(",\"dur\":");
  put_us(r->t1 - r->t0);
}

/* The end of an event's args: failed, unfinished (written on a fatal
 * signal before it ended). */
static void end_args(const struct tl_rec *r) {
  if (r->flags & TL_FAILED)
    puts_(",\"failed\":true");
  if (r->flags & TL_UNFINISHED)
    puts_(",\"unfinished\":true");
  puts_("}}");
}

static void flow(const char *ph, int id, int nowait, int pid, int tid,
                 int64_t ts) {
  head(nowait ? "nowait launch" : "launch", "launch", ph, pid, tid, ts);
  put_kv(",\"id\":", id);
  puts_(ph[0] == 's' ? "}" : ",\"bp\":\"e\"}");
}

struct ctx {
  struct by_id *ops;     /* KERNEL and COPY records by id */
  size_t nops;
  struct by_id *waits;   /* WAIT records by the kernel id they complete */
  size_t nwaits;
  struct by_id *devs;    /* DEV_KERNEL records by kernel id */
  size_t ndevs;
};

static void host_record(const struct ctx *x, const struct tl_rec *r, int tid) {
  char name[512];
  const char *src = where(r->where), *expr;
  switch (r->type) {
  case TL_REGION:
    snprintf(name, sizeof name, "%s%s", region_name(r),
             r->flags & TL_NOWAIT ? " nowait" : "");
    head(name, "construct", "X", 1, tid, r->t0);
    dur(r);
    put_kv(",\"args\":{\"device\":", r->device);
    puts_(",\"source\":");
    put_str(src);
    end_args(r);
    return;
  case TL_ALLOC:
  case TL_FREE:
  case TL_COPY_TO:
  case TL_COPY_FROM: {
    static const char *what[] = {[TL_ALLOC] = "alloc ", [TL_FREE] = "free ",
                                 [TL_COPY_TO] = "to device ",
                                 [TL_COPY_FROM] = "to host "};
    expr = var_expr(r->name);
    snprintf(name, sizeof name, "%s%s", what[r->type], expr);
    head(name, r->type == TL_ALLOC || r->type == TL_FREE ? "memory" : "copy",
         "X", 1, tid, r->t0);
    dur(r);
    put_kv(",\"args\":{\"device\":", r->device);
    put_kv(",\"bytes\":", r->size);
    puts_(",\"variable\":");
    put_str(expr);
    if (r->type == TL_COPY_TO || r->type == TL_COPY_FROM)
      puts_(r->type == TL_COPY_TO ? ",\"direction\":\"host to device\""
                                  : ",\"direction\":\"device to host\"");
    puts_(",\"host\":");
    put_addr(r->hst);
    puts_(",\"device_address\":");
    put_addr(r->tgt);
    puts_(",\"source\":");
    put_str(src);
    if (r->flags & TL_QUEUED)
      puts_(",\"async\":true");
    end_args(r);
    return;
  }
  case TL_KERNEL: {
    const char *k = str(r->name);
    head(k ? k : "kernel", "kernel", "X", 1, tid, r->t0);
    dur(r);
    put_kv(",\"args\":{\"device\":", r->device);
    puts_(",\"source\":");
    put_str(src);
    put_kv(",\"teams\":", (int64_t)r->r1);
    put_kv(",\"threads\":", (int64_t)r->r2);
    put_kv(",\"trip_count\":", r->size);
    puts_(r->flags & TL_NOWAIT ? ",\"nowait\":true" : ",\"nowait\":false");
    puts_(",\"entry\":");
    put_addr(r->tgt);
    end_args(r);
    struct by_id *b = find(x->ops, x->nops, r->id);
    if (b && b->flow)
      flow("s", b->flow, r->flags & TL_NOWAIT, 1, tid, r->t0 + 1);
    return;
  }
  case TL_WAIT: {
    struct by_id *k = find(x->ops, x->nops, r->link);
    const char *kn = k ? str(k->r->name) : NULL;
    head("wait for the device queue", "wait", "X", 1, tid, r->t0);
    dur(r);
    put_kv(",\"args\":{\"device\":", r->device);
    puts_(",\"completes\":");
    put_str(kn ? kn : "copies");
    end_args(r);
    if (k && k->flow) {
      struct by_id *dv = find(x->devs, x->ndevs, r->link);
      int64_t ts = r->t0 + 1;
      if (dv && dv->r->t0 + 2 > ts)
        ts = dv->r->t0 + 2;
      if (ts >= r->t1)
        ts = r->t1 - 1;
      flow("f", k->flow, k->r->flags & TL_NOWAIT, 1, tid, ts);
    }
    return;
  }
  case TL_MAP:
    expr = var_expr(r->name);
    snprintf(name, sizeof name, "map %s: %s", expr, decision_name(r->worker));
    head(name, "map", "i", 1, tid, r->t0);
    puts_(",\"s\":\"t\",\"args\":{\"variable\":");
    put_str(expr);
    puts_(",\"decision\":");
    put_str(decision_name(r->worker));
    put_kv(",\"device\":", r->device);
    put_kv(",\"bytes\":", r->size);
    puts_(",\"host\":");
    put_addr(r->hst);
    puts_(",\"device_address\":");
    put_addr(r->tgt);
    if (r->r1 == UINT64_MAX)
      puts_(",\"dyn_ref\":\"INF\"");
    else
      put_kv(",\"dyn_ref\":", (int64_t)r->r1);
    if (r->r2 == UINT64_MAX)
      puts_(",\"hold_ref\":\"INF\"");
    else
      put_kv(",\"hold_ref\":", (int64_t)r->r2);
    puts_(",\"source\":");
    put_str(src);
    puts_("}}");
    return;
  case TL_DEVICE_INIT:
    snprintf(name, sizeof name, "device %d started", r->device);
    head(name, "device", "i", 1, tid, r->t0);
    puts_(",\"s\":\"t\",\"args\":{\"plugin\":");
    put_str(str(r->name) ? str(r->name) : "?");
    puts_("}}");
    return;
  case TL_IMAGE:
    snprintf(name, sizeof name, "image %d loaded on device %d", r->worker,
             r->device);
    head(name, "device", "i", 1, tid, r->t0);
    put_kv(",\"s\":\"t\",\"args\":{\"bytes\":", r->size);
    puts_("}}");
    return;
  case TL_DEV_WAIT:
    snprintf(name, sizeof name, "drain device %d worker %d", r->device,
             r->worker);
    head(name, "wait", "X", 1, tid, r->t0);
    dur(r);
    put_kv(",\"args\":{\"device\":", r->device);
    put_kv(",\"worker\":", r->worker);
    end_args(r);
    return;
  default:
    return;
  }
}

static void device_record(const struct ctx *x, const struct tl_rec *r) {
  char name[512];
  int pid = 2 + r->device, tid = r->worker + 1;
  struct by_id *h = find(x->ops, x->nops, r->id);
  if (r->type == TL_DEV_KERNEL) {
    const char *k = h ? str(h->r->name) : NULL;
    head(k ? k : "kernel", "kernel", "X", pid, tid, r->t0);
    dur(r);
    puts_(",\"args\":{\"source\":");
    put_str(where(h ? h->r->where : 0));
    puts_(",\"entry\":");
    put_addr(r->tgt);
    put_kv(",\"host_thread\":", h ? h->tid : 0);
    puts_("}}");
    if (h && h->flow) {
      int has_wait = find(x->waits, x->nwaits, r->id) != NULL;
      flow(has_wait ? "t" : "f", h->flow, h->r->flags & TL_NOWAIT, pid, tid,
           r->t0 + 1);
    }
  } else if (r->type == TL_DEV_COPY) {
    int to = !h || h->r->type == TL_COPY_TO;
    const char *expr = var_expr(h ? h->r->name : 0);
    snprintf(name, sizeof name, "%s %s", to ? "to device" : "to host", expr);
    head(name, "copy", "X", pid, tid, r->t0);
    dur(r);
    put_kv(",\"args\":{\"bytes\":", r->size);
    puts_(",\"variable\":");
    put_str(expr);
    put_kv(",\"host_thread\":", h ? h->tid : 0);
    puts_("}}");
  }
}

static int is_device_rec(const struct tl_rec *r) {
  return r->type == TL_DEV_KERNEL || r->type == TL_DEV_COPY;
}

/* Device tracks: (device, worker) of each thread that has device
 * records. */
struct dtrack {
  int device, worker;
  struct track *tr;
};
static int cmp_dtrack(const void *a, const void *b) {
  const struct dtrack *x = a, *y = b;
  if (x->device != y->device)
    return x->device - y->device;
  return x->worker - y->worker;
}
static int cmp_str(const char *a, const char *b) {
  return strcmp(a ? a : "", b ? b : "");
}
static int cmp_track(const void *a, const void *b) {
  const struct track *x = a, *y = b;
  if (x->t->is_main != y->t->is_main)
    return y->t->is_main - x->t->is_main;
  int c = cmp_str(x->first_where, y->first_where);
  if (!c)
    c = cmp_str(x->first_name, y->first_name);
  return c ? c : x->t->seq - y->t->seq;
}

/* Iterate over the records of track TR: its thread's first COUNT, then
 * its unfinished ones. */
#define EACH(tr, r)                                                            \
  for (size_t k_ = 0; k_ < (tr)->count + (tr)->nextra; k_++)                   \
    for (const struct tl_rec *r = track_rec((tr), k_); r; r = NULL)

static struct tl_chunk *rec_at(struct tl_thread *t, size_t k) {
  static struct tl_thread *last_t;
  static struct tl_chunk *last_c;
  static size_t last_k;
  if (t != last_t || k / TL_CHUNK < last_k) {
    last_t = t;
    last_c = t->first;
    last_k = 0;
  }
  while (last_k < k / TL_CHUNK) {
    last_c = last_c->next;
    last_k++;
  }
  return last_c;
}

static const struct tl_rec *track_rec(struct track *tr, size_t k) {
  if (k >= tr->count)
    return &tr->extra[k - tr->count];
  return &rec_at(tr->t, k)->rec[k % TL_CHUNK];
}

/* Copy T's open events into OUT (TL_OPEN records) as they are at one
 * moment (T changes them under its OPEN_GEN sequence lock, timeline.c);
 * their number (0 if T kept changing them). */
static size_t open_snapshot(struct tl_thread *t, struct tl_rec *out) {
  for (int tries = 0; tries < 100; tries++) {
    unsigned g = atomic_load_explicit(&t->open_gen, memory_order_acquire);
    if (g & 1)
      continue;
    int n = atomic_load_explicit(&t->nopen, memory_order_relaxed);
    if (n < 0 || n > TL_OPEN)
      continue;
    memcpy(out, t->open, (size_t)n * sizeof *out);
    atomic_thread_fence(memory_order_acquire);
    if (atomic_load_explicit(&t->open_gen, memory_order_relaxed) == g)
      return (size_t)n;
  }
  return 0;
}

/* TR's unfinished events: T's open ones (taken before its count: an event
 * ends after it is published) not among its first COUNT records, ending
 * at NOW. */
static void take_unfinished(struct track *tr, int64_t now) {
  size_t n = open_snapshot(tr->t, tr->extra), keep = 0;
  tr->count = atomic_load_explicit(&tr->t->count, memory_order_acquire);
  for (size_t j = 0; j < n; j++) {
    int seen = 0;
    for (size_t k = tr->count; k-- > 0 && !seen;)
      seen = rec_at(tr->t, k)->rec[k % TL_CHUNK].id == tr->extra[j].id;
    if (seen)
      continue;
    tr->extra[keep] = tr->extra[j];
    tr->extra[keep].t1 = now > tr->extra[j].t0 ? now : tr->extra[j].t0;
    tr->extra[keep].flags |= TL_UNFINISHED;
    keep++;
  }
  tr->nextra = keep;
}

static void write_all(int fatal) {
  size_t nt = 0;
  for (struct tl_thread *t = tl.threads; t; t = t->next)
    nt++;
  struct track *tr = calloc(nt ? nt : 1, sizeof *tr);
  struct dtrack *dt = calloc(nt ? nt : 1, sizeof *dt);
  if (!tr || !dt) {
    free(tr);
    free(dt);
    return;
  }
  size_t i = 0, nops = 0, nwaits = 0, ndevs = 0, ndt = 0;
  unsigned long long dropped = 0;
  int64_t now = obs_now();
  for (struct tl_thread *t = tl.threads; t; t = t->next, i++) {
    tr[i].t = t;
    if (fatal)
      take_unfinished(&tr[i], now);
    else
      tr[i].count = atomic_load_explicit(&t->count, memory_order_acquire);
    dropped += atomic_load(&t->dropped);
    EACH(&tr[i], r) {
      if (!tr[i].first_where && !tr[i].first_name && !is_device_rec(r) &&
          (r->where || r->name)) {
        tr[i].first_where = str(r->where);
        tr[i].first_name = str(r->name);
      }
    }
  }
  qsort(tr, nt, sizeof *tr, cmp_track);
  int host_tid = 0;
  for (i = 0; i < nt; i++) {
    int host = 0, dev = 0;
    EACH(&tr[i], r) {
      if (is_device_rec(r)) {
        if (!dev++) {
          dt[ndt] = (struct dtrack){r->device, r->worker, &tr[i]};
          ndt++;
        }
        ndevs += r->type == TL_DEV_KERNEL;
      } else {
        host++;
        nops += r->type == TL_KERNEL || r->type == TL_COPY_TO ||
                r->type == TL_COPY_FROM;
        nwaits += r->type == TL_WAIT && r->link;
      }
    }
    tr[i].tid = host ? ++host_tid : 0;
  }
  qsort(dt, ndt, sizeof *dt, cmp_dtrack);
  nderived = names_ok ? tl.nstrs : 0;
  exprs = calloc(nderived + 1, sizeof *exprs);
  wheres = calloc(nderived + 1, sizeof *wheres);
  if (!exprs || !wheres)
    nderived = 0;
  struct ctx x = {calloc(nops + 1, sizeof(struct by_id)), 0,
                  calloc(nwaits + 1, sizeof(struct by_id)), 0,
                  calloc(ndevs + 1, sizeof(struct by_id)), 0};
  if (!x.ops || !x.waits || !x.devs)
    goto out;
  for (i = 0; i < nt; i++)
    EACH(&tr[i], r) {
      if (r->type == TL_KERNEL || r->type == TL_COPY_TO ||
          r->type == TL_COPY_FROM)
        x.ops[x.nops++] = (struct by_id){r->id, r, tr[i].tid, 0};
      else if (r->type == TL_WAIT && r->link)
        x.waits[x.nwaits++] = (struct by_id){r->link, r, tr[i].tid, 0};
      else if (r->type == TL_DEV_KERNEL)
        x.devs[x.ndevs++] = (struct by_id){r->id, r, 0, 0};
    }
  qsort(x.ops, x.nops, sizeof *x.ops, cmp_id);
  qsort(x.waits, x.nwaits, sizeof *x.waits, cmp_id);
  qsort(x.devs, x.ndevs, sizeof *x.devs, cmp_id);
  /* Flow numbers in writing order: host tracks in order, then records. */
  int nflows = 0;
  for (i = 0; i < nt; i++)
    EACH(&tr[i], r) {
      if (r->type != TL_KERNEL)
        continue;
      struct by_id *b = find(x.ops, x.nops, r->id);
      if (b && (find(x.devs, x.ndevs, r->id) || find(x.waits, x.nwaits, r->id)))
        b->flow = ++nflows;
    }

  puts_("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"ompemu "
        PACKAGE_VERSION "\"");
  if (dropped)
    putf(",\"dropped_events\":%llu", dropped);
  puts_("},\n\"traceEvents\":[\n");
  puts_("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":"
        "\"host\"}}");
  puts_(",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":1,\"args\":"
        "{\"sort_index\":0}}");
  for (i = 0; i < nt; i++) {
    if (!tr[i].tid)
      continue;
    char nm[64];
    snprintf(nm, sizeof nm, "host thread %d%s", tr[i].tid - 1,
             tr[i].t->is_main ? " (main)" : "");
    putf(",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
         "\"args\":{\"name\":\"%s\"}}", tr[i].tid, nm);
    putf(",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
         "\"args\":{\"sort_index\":%d}}", tr[i].tid, tr[i].tid);
  }
  for (size_t j = 0; j < ndt; j++) {
    if (j == 0 || dt[j].device != dt[j - 1].device) {
      const char *plugin = NULL;
      for (i = 0; i < nt && !plugin; i++)
        EACH(&tr[i], r) {
          if (r->type == TL_DEVICE_INIT && r->device == dt[j].device &&
              !plugin)
            plugin = str(r->name);
        }
      char nm[96];
      snprintf(nm, sizeof nm, "%s device %d", plugin ? plugin : "",
               dt[j].device);
      putf(",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":"
           "{\"name\":", 2 + dt[j].device);
      put_str(nm[0] == ' ' ? nm + 1 : nm);
      putf("}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,"
           "\"args\":{\"sort_index\":%d}}", 2 + dt[j].device,
           1 + dt[j].device);
    }
    putf(",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
         "\"args\":{\"name\":", 2 + dt[j].device, dt[j].worker + 1);
    put_str(dt[j].tr->t->os_name[0] ? dt[j].tr->t->os_name : "device worker");
    puts_("}}");
  }
  for (i = 0; i < nt; i++)
    if (tr[i].tid)
      EACH(&tr[i], r) {
        if (!is_device_rec(r))
          host_record(&x, r, tr[i].tid);
      }
  for (size_t j = 0; j < ndt; j++)
    EACH(dt[j].tr, r) {
      if (is_device_rec(r))
        device_record(&x, r);
    }
  puts_("\n]}\n");
  flush_out();
  if (o.failed)
    ompemu_error("ompemu", "writing the timeline to '%s' failed", tl.path);
  else if (dropped)
    ompemu_warning("ompemu", "timeline '%s': %llu events were not recorded "
                   "(at most %zu per thread: OMPEMU_TIMELINE_EVENTS)",
                   tl.path, dropped, tl.max_records);
out:
  for (size_t k = 0; k < nderived; k++) {
    free(exprs ? exprs[k] : NULL);
    free(wheres ? wheres[k] : NULL);
  }
  free(exprs);
  free(wheres);
  exprs = wheres = NULL;
  nderived = 0;
  free(x.ops);
  free(x.waits);
  free(x.devs);
  free(tr);
  free(dt);
}

void tl_write(int fatal) {
  if (tl.fd < 0 || getpid() != tl.pid)
    return;
  int locked;
  if (fatal)
    locked = pthread_mutex_trylock(&tl.lock) == 0;
  else
    locked = pthread_mutex_lock(&tl.lock) == 0;
  /* Without the lock (another thread holds it while aborting) the thread
   * list is read as it is and strings are left out. */
  names_ok = locked;
  write_all(fatal);
  if (locked)
    pthread_mutex_unlock(&tl.lock);
  close(tl.fd);
  tl.fd = -1;
}
