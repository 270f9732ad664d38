/* Names of places and symbols as the source writes them, from what
 * compilers emit without a source location (flang 22's target regions):
 * "line N of FUNC" from an offload entry name, and a flang or C++
 * symbol's source name.  Used by the trace, LIBOMPTARGET_INFO and the
 * checker. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "config.h"
#include "rt.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The source name of a flang symbol (lower case; upper-case letters only
 * separate the parts): _QMmodEvar, _QFprocEvar -> var; _QPproc,
 * _QMmodPproc -> proc; _QQmain -> "the main program"; _QCblk -> /blk/;
 * of a C++ one, demangled (_ZN3cfg5scaleE -> cfg::scale).  Any other name
 * is itself. */
/* A C++ symbol demangled by the C++ runtime's __cxa_demangle when the
 * process has one (a C++ program links it): 1 with the name in BUF. */
static int demangled(const char *sym, char *buf, size_t len) {
  typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
  static demangle_fn fn;
  static int looked;
  if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(&fn, (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle"),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  }
  demangle_fn f = __atomic_load_n(&fn, __ATOMIC_RELAXED);
  int status = -1;
  char *d = f ? f(sym, NULL, NULL, &status) : NULL;
  if (d && status == 0)
    snprintf(buf, len, "%s", d);
  free(d);
  return d && status == 0;
}

const char *check_source_name(const char *sym, char *buf, size_t len) {
  if (sym && !strncmp(sym, "_Z", 2) && demangled(sym, buf, len))
    return buf;
  if (!sym || strncmp(sym, "_Q", 2)) {
    snprintf(buf, len, "%s", sym ? sym : "?");
    return buf;
  }
  if (!strcmp(sym, "_QQmain")) {
    snprintf(buf, len, "the main program");
    return buf;
  }
  if (!strncmp(sym, "_QC", 3)) {
    snprintf(buf, len, "/%s/", sym + 3);
    return buf;
  }
  const char *last = NULL;
  for (const char *p = sym + 2; *p; p++)
    if (*p == 'E' || *p == 'P')
      last = p;
  snprintf(buf, len, "%s", last && last[1] ? last + 1
                           : sym[2] == 'P' ? sym + 3 : sym);
  return buf;
}

long rt_kernel_line(const char *name) {
  const char *l = name ? strrchr(name, '_') : NULL;
  char *end;
  if (!l || l[1] != 'l' || l[2] < '1' || l[2] > '9')
    return 0;
  long line = strtol(l + 2, &end, 10);
  return *end ? 0 : line;
}

const char *rt_kernel_unit(const char *name, char *buf, size_t len) {
  const char *l = name ? strrchr(name, '_') : NULL, *fn = name;
  if (!l)
    return NULL;
  /* skip "__omp_offloading_DEV_FILEID_" when it is there */
  if (!strncmp(fn, "__omp_offloading_", 17)) {
    const char *p = strchr(fn + 17, '_');
    p = p ? strchr(p + 1, '_') : NULL;
    fn = p && p + 1 < l ? p + 1 : name;
  }
  snprintf(buf, len, "%.*s", (int)(l - fn), fn);
  return buf;
}

const char *rt_kernel_where(const char *name, char *buf, size_t len) {
  long line = rt_kernel_line(name);
  char f[256], src[256];
  if (!line || !rt_kernel_unit(name, f, sizeof f))
    return NULL;
  snprintf(buf, len, "line %ld of %s", line,
           check_source_name(f, src, sizeof src));
  return buf;
}
