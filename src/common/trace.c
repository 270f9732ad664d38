/* Trace and diagnostic output (see trace.h). */
#include "config.h"
#include "trace.h"
#include "envvar.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int trace_level = -1;
static FILE *trace_out;
static pthread_once_t trace_once = PTHREAD_ONCE_INIT;
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
     * first to open the trace file in this process truncates it, the others
     * append, so their lines interleave instead of overwriting each other. */
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    const char *mark = getenv("OMPEMU_TRACE_FILE_OWNER");
    int first = !mark || strcmp(mark, pid) != 0;
    FILE *o = fopen(f, first ? "w" : "a");
    if (o && first)
      setenv("OMPEMU_TRACE_FILE_OWNER", pid, 1);
    if (o && !first)
      fseek(o, 0, SEEK_END);
    if (o) {
      setvbuf(o, NULL, _IOLBF, 0);
      trace_out = o;
    } else {
      fprintf(stderr, "ompemu: error: cannot open OMPEMU_TRACE_FILE '%s'\n", f);
    }
  }
}

int ompemu_trace_level(void) {
  pthread_once(&trace_once, trace_init);
  return trace_level;
}

void ompemu_set_trace_level(int level) {
  pthread_once(&trace_once, trace_init);
  trace_level = level;
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

void ompemu_error(const char *who, const char *fmt, ...) {
  pthread_once(&trace_once, trace_init);
  va_list ap;
  va_start(ap, fmt);
  vline(stderr, who, "error: ", fmt, ap);
  va_end(ap);
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
