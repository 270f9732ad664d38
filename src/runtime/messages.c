/* LIBOMPTARGET_INFO output and the "Libomptarget ..." messages with LLVM
 * 14's exact texts (docs/abi-clang14-runtime.md section 7.6 and docs/abi-clang14.md section 11): prefixes,
 * and source locations parsed from ident_t.psource and map names.  Every
 * line goes through ompemu_report (src/common/trace.h). */
#include "config.h"
#include "data.h"
#include "observe.h"
#include "trace.h"
#include "locstr.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_info_msg(int32_t device, const char *fmt, ...) {
  char prefix[64];
  snprintf(prefix, sizeof prefix, "Libomptarget device %d info: ", (int)device);
  va_list ap;
  va_start(ap, fmt);
  ompemu_vreport(OMPEMU_NOTE, prefix, fmt, ap);
  va_end(ap);
}

void rt_message(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ompemu_vreport(OMPEMU_ERROR, "Libomptarget message: ", fmt, ap);
  va_end(ap);
}

void rt_err(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ompemu_vreport(OMPEMU_ERROR, "Libomptarget error: ", fmt, ap);
  va_end(ap);
}

static void vfatal(const char *where, int code, const char *fmt, va_list ap)
    __attribute__((noreturn));
static void vfatal(const char *where, int code, const char *fmt,
                   va_list ap) {
  char prefix[1200];
  snprintf(prefix, sizeof prefix, "%sLibomptarget fatal error %d: ",
           where ? where : "", code);
  ompemu_vreport(OMPEMU_FATAL, prefix, fmt, ap);
  OBS_FATAL();
  abort();
}

void rt_fatal(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfatal(NULL, code, fmt, ap);
}

void rt_fatal_at(const char *where, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfatal(where, code, fmt, ap);
}

static const char *basename_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

const char *rt_name_str(const void *name, char *buf, size_t len) {
  if (!name || !map_name_expr(name, buf, len))
    snprintf(buf, len, "unknown");
  return buf;
}

/* "file:line:col" of a ";...;...;line;col;;" string whose file is field
 * FILE_FIELD (locstr.h). */
static const char *loc_of(const char *s, int file_field, char *buf,
                          size_t len) {
  char file[512], line[32], col[32];
  if (!s || !loc_field(s, file_field, file, sizeof file) ||
      !loc_field(s, 2, line, sizeof line) ||
      !loc_field(s, 3, col, sizeof col))
    snprintf(buf, len, "unknown:0:0");
  else
    snprintf(buf, len, "%s:%d:%d", basename_of(file), atoi(line), atoi(col));
  return buf;
}

const char *rt_name_loc_str(const void *name, char *buf, size_t len) {
  return loc_of(name, name ? map_name_file_field(name) : 1, buf, len);
}

const char *rt_loc_str(const ident_t *loc, char *buf, size_t len) {
  /* psource is ";file;func;line;col;;" */
  return loc_of(loc ? loc->psource : NULL, 0, buf, len);
}

const char *rt_target_loc_str(const ident_t *loc, const char *kernel,
                              char *buf, size_t len) {
  loc_of(loc ? loc->psource : NULL, 0, buf, len);
  if (!strcmp(buf, "unknown:0:0") && kernel &&
      !rt_kernel_where(kernel, buf, len))
    loc_of(NULL, 0, buf, len);
  return buf;
}

void rt_print_args(int32_t dev, const char *where, const char *what, int32_t n,
                   int64_t *sizes, int64_t *types, map_var_info_t *names) {
  char nm[512];
  rt_info_msg(dev, "%s at %s with %d arguments:", what, where, (int)n);
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
