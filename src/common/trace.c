/* Trace and diagnostic output (see trace.h). */
#include "config.h"
#include "trace.h"
#include "envvar.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int trace_level = -1;
__attribute__((visibility("hidden"))) int ompemu_trace_cur = -1;
static FILE *trace_out;
static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
static atomic_int trace_ready; /* trace_init has run */
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;

/* Read OMPEMU_TRACE and OMPEMU_TRACE_FILE once per process. */
static void trace_init(void) {
  long long v = 0;
  if (ompemu_env_int("OMPEMU_TRACE", 0, 0, 3, &v) != 0)
    v = 0;
  if (trace_level < 0)
    trace_level = (int)v;
  trace_out = stderr;
  const char *f = getenv("OMPEMU_TRACE_FILE");
  if (f && *f) {
    /* The runtime and each plugin carry their own copy of this file: the
     * first to open the trace file in this process truncates it; every copy
     * then writes in append mode, so their lines interleave instead of one
     * copy writing over the lines of another from its own file offset. */
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    const char *mark = getenv("OMPEMU_TRACE_FILE_OWNER");
    int first = !mark || strcmp(mark, pid) != 0;
    FILE *o = first ? fopen(f, "w") : NULL;
    if (o) {
      fclose(o);
      setenv("OMPEMU_TRACE_FILE_OWNER", pid, 1);
    }
    o = fopen(f, "a");
    if (o) {
      setvbuf(o, NULL, _IOLBF, 0);
      trace_out = o;
    } else {
      ompemu_error("ompemu", "cannot open OMPEMU_TRACE_FILE '%s'", f);
    }
  }
  /* Published last: a thread that reads it sees TRACE_OUT set. */
  __atomic_store_n(&ompemu_trace_cur, trace_level, __ATOMIC_RELEASE);
  atomic_store_explicit(&trace_ready, 1, memory_order_release);
}

int ompemu_trace_level(void) {
  /* Asked several times per construct: one load once initialised. */
  if (!atomic_load_explicit(&trace_ready, memory_order_acquire))
    pthread_once(&trace_once, trace_init);
  return trace_level;
}

void ompemu_set_trace_level(int level) {
  pthread_once(&trace_once, trace_init);
  trace_level = level;
  __atomic_store_n(&ompemu_trace_cur, level, __ATOMIC_RELEASE);
}

static void vline(FILE *out, const char *who, const char *tag, const char *fmt,
                  va_list ap) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "%s: %s", who, tag);
  if (n < 0 || (size_t)n >= sizeof buf)
    n = 0;
  vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
  /* One fputs per line keeps lines from different threads whole. */
  pthread_mutex_lock(&trace_lock);
  fputs(buf, out);
  fputc('\n', out);
  fflush(out);
  pthread_mutex_unlock(&trace_lock);
}

void ompemu_trace(int level, const char *who, const char *fmt, ...) {
  if (ompemu_trace_level() < level)
    return;
  va_list ap;
  va_start(ap, fmt);
  vline(trace_out, who, "", fmt, ap);
  va_end(ap);
}

/* ---- diagnostics ---- */

static atomic_ulong nerrors;
static _Atomic(ompemu_diag_observer) observer;
typedef void (*sink_fn)(int, const char *);
static sink_fn sink;
static pthread_once_t sink_once = PTHREAD_ONCE_INIT;

/* The runtime's sink if it is in the process (it is this copy's own
 * function when this copy is the runtime's). */
static void find_sink(void) {
  *(void **)&sink = dlsym(RTLD_DEFAULT, "ompemu_report_sink");
}

/* Print LINE, count it, tell the observer: what the process-wide sink
 * does, and what a copy with no runtime around does itself. */
/* Whether LINE was delivered with OMPEMU_ONCE before (remembers it if
 * not).  Caller holds trace_lock. */
#define ONCE_MAX 64
static int seen_before(const char *line) {
  static unsigned long long seen[ONCE_MAX];
  static int nseen;
  unsigned long long h = 1469598103934665603ull; /* FNV-1a */
  for (const char *p = line; *p; p++)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  for (int i = 0; i < nseen; i++)
    if (seen[i] == h)
      return 1;
  if (nseen < ONCE_MAX)
    seen[nseen++] = h;
  return 0;
}

void ompemu_diag_deliver(int sev, const char *line) {
  if (sev & OMPEMU_ONCE) {
    pthread_mutex_lock(&trace_lock);
    int again = seen_before(line);
    pthread_mutex_unlock(&trace_lock);
    if (again)
      return;
    sev &= ~OMPEMU_ONCE;
  }
  if (sev >= OMPEMU_ERROR)
    atomic_fetch_add(&nerrors, 1);
  pthread_mutex_lock(&trace_lock);
  fputs(line, stderr);
  fputc('\n', stderr);
  fflush(stderr);
  pthread_mutex_unlock(&trace_lock);
  ompemu_diag_observer fn = atomic_load(&observer);
  if (fn)
    fn((enum ompemu_severity)sev, line);
}

void ompemu_vreport(enum ompemu_severity sev, const char *prefix,
                    const char *fmt, va_list ap) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "%s", prefix ? prefix : "");
  if (n < 0 || (size_t)n >= sizeof buf)
    n = 0;
  vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
  size_t len = strlen(buf);
  if (len && buf[len - 1] == '\n') /* LLVM's texts may end in one */
    buf[len - 1] = '\0';
  pthread_once(&sink_once, find_sink);
  if (sink)
    sink((int)sev, buf);
  else
    ompemu_diag_deliver((int)sev, buf);
}

void ompemu_report(enum ompemu_severity sev, const char *prefix,
                   const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ompemu_vreport(sev, prefix, fmt, ap);
  va_end(ap);
}

static void who_report(enum ompemu_severity sev, const char *who,
                       const char *tag, const char *fmt, va_list ap) {
  char prefix[128];
  snprintf(prefix, sizeof prefix, "%s: %s", who, tag);
  ompemu_vreport(sev, prefix, fmt, ap);
}

void ompemu_error(const char *who, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  who_report(OMPEMU_ERROR, who, "error: ", fmt, ap);
  va_end(ap);
}

void ompemu_warning(const char *who, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  who_report(OMPEMU_WARNING, who, "warning: ", fmt, ap);
  va_end(ap);
}

unsigned long ompemu_error_count(void) {
  pthread_once(&sink_once, find_sink);
  return atomic_load(&nerrors);
}

void ompemu_set_diag_observer(ompemu_diag_observer fn) {
  atomic_store(&observer, fn);
}

void ompemu_raw(const char *fmt, ...) {
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&trace_lock);
  fputs(buf, stderr);
  fflush(stderr);
  pthread_mutex_unlock(&trace_lock);
}

void ompemu_write_stderr(const char *s) {
  size_t n = strlen(s);
  while (n) {
    ssize_t w = write(2, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= (size_t)w;
  }
}
