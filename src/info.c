/* LIBOMPTARGET_INFO output and the "Libomptarget ..." messages with LLVM
 * 14's exact texts (ABI-llvm14.md sections 7.6 and 11): prefixes, source
 * locations parsed from ident_t.psource and map names, and the
 * DUMP_TABLE listing. */
#include "config.h"
#include "data.h"
#include "mapping.h"
#include "trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_info(uint32_t bit) { return (rt_state.info_flags & bit) != 0; }

/* Print PREFIX + formatted text as one line to stderr (one fputs so lines
 * from different threads stay whole). */
static void vprint(const char *prefix, const char *fmt, va_list ap) {
  char buf[2048];
  int n = snprintf(buf, sizeof buf, "%s", prefix);
  if (n < 0 || (size_t)n >= sizeof buf)
    n = 0;
  vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
  size_t len = strlen(buf);
  if (len == 0 || buf[len - 1] != '\n') {
    buf[len] = '\n';
    buf[len + 1] = '\0';
  }
  fputs(buf, stderr);
  fflush(stderr);
}

void rt_info_msg(int32_t device, const char *fmt, ...) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "Libomptarget device %d info: ", (int)device);
  va_list ap;
  va_start(ap, fmt);
  vprint(prefix, fmt, ap);
  va_end(ap);
}

void rt_message(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint("Libomptarget message: ", fmt, ap);
  va_end(ap);
}

void rt_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint("Libomptarget error: ", fmt, ap);
  va_end(ap);
}

void rt_fatal(int code, const char *fmt, ...) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "Libomptarget fatal error %d: ", code);
  va_list ap;
  va_start(ap, fmt);
  vprint(prefix, fmt, ap);
  va_end(ap);
  abort();
}

/* Field FIELD (0-based, after the leading ';') of a ";a;b;c;d;;" string
 * into BUF. */
static const char *field(const char *s, int fieldno, char *buf, size_t len) {
  if (!s || s[0] != ';')
    return NULL;
  const char *p = s + 1;
  for (int i = 0; i < fieldno; i++) {
    p = strchr(p, ';');
    if (!p)
      return NULL;
    p++;
  }
  const char *e = strchr(p, ';');
  size_t n = e ? (size_t)(e - p) : strlen(p);
  if (n >= len)
    n = len - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}

static const char *basename_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

const char *rt_name_str(const void *name, char *buf, size_t len) {
  if (!name || !field(name, 0, buf, len) || !buf[0])
    snprintf(buf, len, "unknown");
  return buf;
}

/* "file:line:col" of a ";...;...;line;col;;" string whose file is field
 * FILE_FIELD (psource: ";file;func;line;col;;", map names:
 * ";expr;file;line;col;;"). */
static const char *loc_of(const char *s, int file_field, char *buf,
                          size_t len) {
  char file[512], line[32], col[32];
  if (!s || !field(s, file_field, file, sizeof file) ||
      !field(s, 2, line, sizeof line) || !field(s, 3, col, sizeof col))
    snprintf(buf, len, "unknown:0:0");
  else
    snprintf(buf, len, "%s:%d:%d", basename_of(file), atoi(line), atoi(col));
  return buf;
}

const char *rt_loc_str(const ident_t *loc, char *buf, size_t len) {
  /* psource is ";file;func;line;col;;" */
  return loc_of(loc ? loc->psource : NULL, 0, buf, len);
}

void rt_print_args(int32_t dev, ident_t *loc, const char *what, int32_t n,
                   int64_t *sizes, int64_t *types, map_var_info_t *names) {
  char where[600], nm[512];
  rt_info_msg(dev, "%s at %s with %d arguments:", what,
              rt_loc_str(loc, where, sizeof where), (int)n);
  for (int32_t i = 0; i < n; i++) {
    int64_t t = types[i];
    const char *ty;
    if ((t & OMP_TGT_MAPTYPE_TO) && (t & OMP_TGT_MAPTYPE_FROM))
      ty = "tofrom";
    else if (t & OMP_TGT_MAPTYPE_TO)
      ty = "to";
    else if (t & OMP_TGT_MAPTYPE_FROM)
      ty = "from";
    else if (t & OMP_TGT_MAPTYPE_PRIVATE)
      ty = "private";
    else if (t & OMP_TGT_MAPTYPE_LITERAL)
      ty = "firstprivate";
    else if (sizes[i] != 0)
      ty = "alloc";
    else
      ty = "use_address";
    rt_info_msg(dev, "%s(%s)[%ld] %s\n", ty,
                rt_name_str(names ? names[i] : NULL, nm, sizeof nm),
                (long)sizes[i],
                (t & OMP_TGT_MAPTYPE_IMPLICIT) ? "(implicit)" : "");
  }
}

struct dump_ctx {
  int32_t dev;
};

static int dump_row(struct map_entry *e, void *arg) {
  struct dump_ctx *c = arg;
  char dyn[24], hold[24], nm[512], where[600];
  const char *name = e->name;
  rt_info_msg(c->dev, OMPEMU_PTR " " OMPEMU_PTR " %-8lu %-11s %-12s %s at %s",
              OMPEMU_P(e->hst_begin), OMPEMU_P(e->tgt_begin),
              (unsigned long)(e->hst_end - e->hst_begin),
              map_ref_str(e->dyn_ref, dyn), map_ref_str(e->hold_ref, hold),
              rt_name_str(name, nm, sizeof nm),
              loc_of(name, 1, where, sizeof where));
  return 0;
}

void rt_dump_table(struct rt_device *d, ident_t *loc) {
  if (!d)
    return;
  pthread_mutex_lock(&d->map_lock);
  struct map_table *t = d->maps;
  if (t && t->count) {
    char where[600];
    rt_info_msg(d->id, "OpenMP Host-Device pointer mappings after block at %s:",
                rt_loc_str(loc, where, sizeof where));
    rt_info_msg(d->id, "Host Ptr           Target Ptr         Size (B) "
                       "DynRefCount HoldRefCount Declaration");
    struct dump_ctx c = {d->id};
    map_foreach(t, dump_row, &c);
  }
  pthread_mutex_unlock(&d->map_lock);
}

void rt_dump_tables(ident_t *loc) {
  if (!rt_info(RT_INFO_DUMP_TABLE))
    return;
  int32_t n = __atomic_load_n(&rt_state.num_devices, __ATOMIC_ACQUIRE);
  for (int32_t i = 0; i < n; i++)
    rt_dump_table(rt_state.devices[i], loc);
}
