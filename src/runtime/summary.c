/* The run summary (OMPEMU_SUMMARY, `ompemu-run --summary`): an observer
 * that counts, per kernel, its launches and their times (the device
 * worker's run time when the plugin reports it, else the host's time in
 * the plugin's launch call), and per mapped variable the bytes and copies
 * each way; printed as two plain tables at exit (docs/observe.md).
 * Counting takes one leaf mutex per event while the summary is on. */
#define _GNU_SOURCE
#include "config.h"
#include "devevent.h"
#include "observe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Launch times kept per kernel for the median. */
#define MAX_SAMPLES (1u << 20)

struct samples {
  int64_t *v;
  size_t n, cap;
  int64_t total;
};

struct kernel {
  int32_t device;
  const void *entry;
  char *name;       /* copied: the image may be gone at exit */
  char where[128];  /* "file:line" of the construct */
  unsigned long launches, failed;
  struct samples host, dev;
};

struct variable {
  const char *key;  /* the map name pointer (NULL: copies with no name) */
  char label[256];  /* "expr (file:line)" */
  unsigned long long bytes_to, bytes_from;
  unsigned long copies_to, copies_from;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct kernel *kernels;
static size_t nkernels, capkernels;
static struct variable *vars;
static size_t nvars, capvars;
static FILE *out; /* NULL: stderr */

/* Grow *ARR (of *CAP elements of SIZE) to hold one more; 0 / -1. */
static int grow(void **arr, size_t *cap, size_t n, size_t size) {
  if (n < *cap)
    return 0;
  size_t nc = *cap ? *cap * 2 : 16;
  void *p = realloc(*arr, nc * size);
  if (!p)
    return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

static void add_sample(struct samples *s, int64_t ns) {
  s->total += ns;
  if (s->n == s->cap && s->cap < MAX_SAMPLES) {
    size_t nc = s->cap ? s->cap * 2 : 64;
    int64_t *v = realloc(s->v, nc * sizeof *v);
    if (v) {
      s->v = v;
      s->cap = nc;
    }
  }
  if (s->n < s->cap)
    s->v[s->n++] = ns;
}

/* The kernel (DEVICE, ENTRY), added if new (NULL when out of memory). */
static struct kernel *kernel_of(int32_t device, const void *entry) {
  for (size_t i = 0; i < nkernels; i++)
    if (kernels[i].device == device && kernels[i].entry == entry)
      return &kernels[i];
  if (grow((void **)&kernels, &capkernels, nkernels, sizeof *kernels))
    return NULL;
  struct kernel *k = &kernels[nkernels++];
  memset(k, 0, sizeof *k);
  k->device = device;
  k->entry = entry;
  return k;
}

static struct variable *variable_of(const char *key) {
  for (size_t i = 0; i < nvars; i++)
    if (vars[i].key == key)
      return &vars[i];
  if (grow((void **)&vars, &capvars, nvars, sizeof *vars))
    return NULL;
  struct variable *v = &vars[nvars++];
  memset(v, 0, sizeof *v);
  v->key = key;
  if (key) {
    char expr[160], where[90];
    snprintf(v->label, sizeof v->label, "%s (%s)",
             obs_var_expr(key, expr, sizeof expr),
             obs_var_where(key, where, sizeof where));
  } else {
    snprintf(v->label, sizeof v->label, "(no name: attached pointers, "
             "omp_target_memcpy, unnamed maps)");
  }
  return v;
}

static void on_kernel(const struct obs_event *e) {
  struct kernel *k = kernel_of(e->device, e->entry);
  if (!k)
    return;
  if (!k->name) {
    k->name = strdup(e->kernel ? e->kernel : "(unnamed)");
    if (e->region && e->region->loc && obs_loc_line(e->region->loc) > 0) {
      char file[256];
      snprintf(k->where, sizeof k->where, "%s:%d",
               obs_loc_file(e->region->loc, file, sizeof file),
               obs_loc_line(e->region->loc));
    } else if (e->kernel) {
      /* flang's ident says ";unknown;unknown;0;0;;": the kernel's name
       * gives the line and the function ("line 9 of the main program"). */
      (void)rt_kernel_where(e->kernel, k->where, sizeof k->where);
    }
  }
  if (e->result) {
    k->failed++;
    return;
  }
  k->launches++;
  add_sample(&k->host, e->t1 - e->t0);
}

static int summary_event(struct obs_event *e, enum obs_phase ph) {
  if (ph == OBS_PH_BEGIN)
    return 0;
  pthread_mutex_lock(&lock);
  switch (e->point) {
  case OBS_KERNEL:
    on_kernel(e);
    break;
  case OBS_DEV_RUN:
    if (e->dev_kind == OMPEMU_DEVEV_KERNEL) {
      struct kernel *k = kernel_of(e->device, e->entry);
      if (k)
        add_sample(&k->dev, e->t1 - e->t0);
    }
    break;
  case OBS_COPY_TO:
  case OBS_COPY_FROM:
    if (!e->result) {
      struct variable *v = variable_of(e->var);
      if (v && e->point == OBS_COPY_TO) {
        v->bytes_to += (unsigned long long)e->size;
        v->copies_to++;
      } else if (v) {
        v->bytes_from += (unsigned long long)e->size;
        v->copies_from++;
      }
    }
    break;
  default:
    break;
  }
  pthread_mutex_unlock(&lock);
  return 0;
}

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int64_t median(struct samples *s) {
  if (!s->n)
    return 0;
  qsort(s->v, s->n, sizeof *s->v, cmp64);
  return s->n % 2 ? s->v[s->n / 2] : (s->v[s->n / 2 - 1] + s->v[s->n / 2]) / 2;
}

static void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void line(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (out)
    fprintf(out, "%s\n", buf);
  else
    ompemu_raw("%s\n", buf);
}

static void summary_finish(int fatal) {
  pthread_mutex_lock(&lock);
  line("ompemu summary%s", fatal ? " (the process is aborting)" : "");
  line("kernels (time: d = on the device worker, h = the host's launch "
       "call):");
  line("%6s %6s %12s %12s  %s", "device", "runs", "total ms", "median us",
       "kernel (construct)");
  for (size_t i = 0; i < nkernels; i++) {
    struct kernel *k = &kernels[i];
    if (!k->name)
      continue; /* device events of a kernel the runtime did not launch */
    /* Device times when the plugin reported every launch. */
    struct samples *s = k->dev.n >= k->launches && k->launches ? &k->dev
                                                               : &k->host;
    char fails[48] = "";
    if (k->failed)
      snprintf(fails, sizeof fails, ", %lu failed", k->failed);
    line("%6d %6lu %11.3f%c %11.1f%c  %s (%s)%s", (int)k->device, k->launches,
         (double)s->total / 1e6, s == &k->dev ? 'd' : 'h',
         (double)median(s) / 1e3, s == &k->dev ? 'd' : 'h', k->name,
         k->where[0] ? k->where : "unknown", fails);
  }
  if (!nkernels)
    line("  (none)");
  line("variables (bytes and copies each way):");
  line("%14s %8s %14s %8s  %s", "to device", "copies", "to host", "copies",
       "variable");
  for (size_t i = 0; i < nvars; i++) {
    struct variable *v = &vars[i];
    line("%14llu %8lu %14llu %8lu  %s", v->bytes_to, v->copies_to,
         v->bytes_from, v->copies_from, v->label);
  }
  if (!nvars)
    line("  (none)");
  if (out)
    fflush(out);
  pthread_mutex_unlock(&lock);
}

static struct obs_observer summary_observer = {
    .name = "summary",
    .points = OBS_BIT(OBS_KERNEL) | OBS_BIT(OBS_DEV_RUN) |
              OBS_BIT(OBS_COPY_TO) | OBS_BIT(OBS_COPY_FROM) |
              OBS_BIT(OBS_REGION),
    .timed = 1,
    .event = summary_event,
    .finish = summary_finish,
};

void obs_summary_setup(void) {
  const char *s = getenv("OMPEMU_SUMMARY");
  if (!s || !*s || !strcmp(s, "0"))
    return;
  if (strcmp(s, "1")) {
    out = fopen(s, "w");
    if (!out) {
      ompemu_error("ompemu", "cannot open OMPEMU_SUMMARY file '%s': the "
                   "summary goes to stderr", s);
    }
  }
  obs_register(&summary_observer);
}
