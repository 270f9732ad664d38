/* Names of places and symbols as the source writes them, from what
 * compilers emit without a source location (flang 22's target regions):
 * "line N of FUNC" from an offload entry name, and a flang symbol's source
 * name.  Used by the trace, LIBOMPTARGET_INFO and the checker. */
#include "config.h"
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The source name of a flang symbol (lower case; upper-case letters only
 * separate the parts): _QMmodEvar, _QFprocEvar -> var; _QPproc,
 * _QMmodPproc -> proc; _QQmain -> "the main program"; _QCblk -> /blk/.
 * Any other name is itself. */
const char *check_source_name(const char *sym, char *buf, size_t len) {
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

const char *rt_kernel_where(const char *name, char *buf, size_t len) {
  long line = rt_kernel_line(name);
  if (!line)
    return NULL;
  const char *l = strrchr(name, '_'), *fn = name;
  /* skip "__omp_offloading_DEV_FILEID_" when it is there */
  if (!strncmp(fn, "__omp_offloading_", 17)) {
    const char *p = strchr(fn + 17, '_');
    p = p ? strchr(p + 1, '_') : NULL;
    fn = p && p + 1 < l ? p + 1 : name;
  }
  char f[256], src[256];
  snprintf(f, sizeof f, "%.*s", (int)(l - fn), fn);
  snprintf(buf, len, "line %ld of %s", line,
           check_source_name(f, src, sizeof src));
  return buf;
}
