/* The runtime's guard against a second offload runtime in the process
 * (see foreign_runtime.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "config.h"

#include "foreign_runtime.h"
#include "trace.h"

#include <dlfcn.h>
#include <link.h>
#include <string.h>

int rt_is_offload_runtime_name(const char *path) {
  if (!path)
    return 0;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  static const char stem[] = "libomptarget.so";
  size_t n = sizeof stem - 1;
  if (strncmp(base, stem, n) != 0)
    return 0;
  const char *v = base + n;
  if (*v == '\0')
    return 1;
  if (*v != '.' || v[1] == '\0')
    return 0;
  for (v++; *v; v++)
    if ((*v < '0' || *v > '9') && *v != '.')
      return 0;
  return 1;
}

struct scan {
  uintptr_t self;          /* an address inside this object */
  const char *self_name;   /* its path ("" for the executable) */
  int found;
};

/* Does object INFO contain address A in one of its PT_LOAD segments? */
static int contains(const struct dl_phdr_info *info, uintptr_t a) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && a >= lo && a - lo < ph->p_memsz)
      return 1;
  }
  return 0;
}

/* dl_iterate_phdr callback: report INFO when it is another runtime. */
static int visit(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  struct scan *s = arg;
  if (!info->dlpi_name || !rt_is_offload_runtime_name(info->dlpi_name) ||
      contains(info, s->self))
    return 0;
  s->found++;
  ompemu_error("ompemu",
               "another OpenMP offload runtime is loaded in this process: "
               "%s (ompemu's is %s); both would register the program's "
               "device images. Start the program with ompemu-run, which "
               "makes it load ompemu's runtime under the name it needs, or "
               "relink it with `pkg-config --libs ompemu`",
               info->dlpi_name,
               s->self_name && *s->self_name ? s->self_name
                                             : "linked into the program");
  return 0;
}

int rt_check_single_runtime(void) {
  struct scan s = {(uintptr_t)&rt_check_single_runtime, NULL, 0};
  Dl_info di;
  if (dladdr((void *)&rt_check_single_runtime, &di) && di.dli_fname)
    s.self_name = di.dli_fname;
  dl_iterate_phdr(visit, &s);
  return s.found ? -1 : 0;
}
