/* Offload policy (docs/abi-clang14-runtime.md 7.2, 7.6): OMP_TARGET_OFFLOAD through
 * libomp's __kmpc_get_target_offload when libomp is in the process (weak:
 * a gcc-built program has none, docs/design.md contract 7), otherwise parsed
 * here; the default device; and the outcome of a construct under the
 * policy (the mandatory fatal path). */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"
#include "core.h"
#include "envvar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int __kmpc_get_target_offload(void) __attribute__((weak));
int omp_get_default_device(void) __attribute__((weak));

enum { POLICY_UNREAD = -1, POLICY_DISABLED = 0, POLICY_DEFAULT = 1,
       POLICY_MANDATORY = 2 };
static int policy = POLICY_UNREAD; /* atomic accesses only */

int rt_offload_policy(void) {
  int p = __atomic_load_n(&policy, __ATOMIC_ACQUIRE);
  if (p != POLICY_UNREAD)
    return p;
  if (__kmpc_get_target_offload) {
    p = __kmpc_get_target_offload();
    check_ompt_take_back(); /* libomp has looked for its tool by now */
  } else {
    const char *s = getenv("OMP_TARGET_OFFLOAD");
    p = POLICY_DEFAULT;
    if (s && !strcasecmp(s, "disabled"))
      p = POLICY_DISABLED;
    else if (s && !strcasecmp(s, "mandatory"))
      p = POLICY_MANDATORY;
    else if (s && *s && strcasecmp(s, "default"))
      ompemu_error("ompemu", "OMP_TARGET_OFFLOAD='%s' ignored: not DISABLED, "
                   "DEFAULT or MANDATORY", s);
  }
  if (p < POLICY_DISABLED || p > POLICY_MANDATORY)
    p = POLICY_DEFAULT;
  int expected = POLICY_UNREAD;
  __atomic_compare_exchange_n(&policy, &expected, p, 0, __ATOMIC_ACQ_REL,
                              __ATOMIC_ACQUIRE);
  return __atomic_load_n(&policy, __ATOMIC_ACQUIRE);
}

/* "default" becomes mandatory if any device exists, else disabled. */
int rt_is_offload_disabled(void) {
  int p = rt_offload_policy();
  if (p == POLICY_DEFAULT) {
    int r = rt_num_devices() > 0 ? POLICY_MANDATORY : POLICY_DISABLED;
    __atomic_compare_exchange_n(&policy, &p, r, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    RT_TRACE(2, "offload policy default resolved to %s",
             r == POLICY_MANDATORY ? "mandatory" : "disabled");
    p = __atomic_load_n(&policy, __ATOMIC_ACQUIRE);
  }
  return p == POLICY_DISABLED;
}

int rt_default_device(void) {
  if (omp_get_default_device)
    return omp_get_default_device();
  long long v;
  ompemu_env_int("OMP_DEFAULT_DEVICE", 0, 0, INT32_MAX, &v);
  return (int)v;
}

/* ";file;func;line;col;;" -> FILE (basename), LINE, COL; 0 if unknown. */
static int source_location(ident_t *loc, char *file, size_t n, int *line,
                           int *col) {
  loc = rt_loc_readable(loc);
  if (!loc || !loc->psource || loc->psource[0] != ';')
    return 0;
  const char *f = loc->psource + 1;
  const char *e = strchr(f, ';');
  if (!e)
    return 0;
  const char *fn = strchr(e + 1, ';');
  if (!fn)
    return 0;
  *line = atoi(fn + 1);
  const char *c = strchr(fn + 1, ';');
  *col = c ? atoi(c + 1) : 0;
  if (!*line && !*col)
    return 0;
  const char *slash = f;
  for (const char *q = f; q < e; q++)
    if (*q == '/')
      slash = q + 1;
  snprintf(file, n, "%.*s", (int)(e - slash), slash);
  return 1;
}

void rt_handle_outcome(int rc, ident_t *loc) {
  rt_handle_target_outcome(rc, loc, NULL);
}

void rt_handle_target_outcome(int rc, ident_t *loc, void *host_ptr) {
  /* The usual outcome, nothing to do: success, offloading mandatory. */
  if (rc == OFFLOAD_SUCCESS &&
      __atomic_load_n(&policy, __ATOMIC_ACQUIRE) == POLICY_MANDATORY)
    return;
  int success = rc == OFFLOAD_SUCCESS;
  rt_is_offload_disabled(); /* resolves "default" */
  switch (rt_offload_policy()) {
  case POLICY_DISABLED:
    if (success)
      rt_fatal(1, "expected no offloading while offloading is disabled");
    break;
  case POLICY_DEFAULT:
    rt_fatal(1, "default offloading policy must be switched to mandatory or "
                "disabled");
  case POLICY_MANDATORY:
    if (success)
      break;
    if (rt_info(RT_INFO_DUMP_TABLE)) {
      for (int32_t i = 0; i < rt_num_devices(); i++)
        rt_dump_table(rt_state.devices[i], loc);
    } else {
      rt_err("Consult https://openmp.llvm.org/design/Runtimes.html for "
             "debugging options.");
    }
    char file[1024], where[1100];
    int line, col;
    int known = source_location(loc, file, sizeof file, &line, &col);
    const char *kernel = host_ptr && !known ? rt_host_entry_name(host_ptr)
                                            : NULL;
    char unit[256], kw[600];
    /* flang's units are _QQmain, _QPname, _QMmodPname */
    int flang = kernel && rt_kernel_unit(kernel, unit, sizeof unit) &&
                !strncmp(unit, "_Q", 2);
    if (known)
      snprintf(where, sizeof where, "%s:%d:%d: ", file, line, col);
    else if (flang && rt_kernel_where(kernel, kw, sizeof kw))
      snprintf(where, sizeof where, "%s: ", kw), known = 1;
    else if (!flang)
      rt_err("Source location information not present. Compile with -g or "
             "-gline-tables-only.");
    rt_fatal_at(known ? where : NULL, 1,
                "failure of target construct while offloading is mandatory");
  }
}
