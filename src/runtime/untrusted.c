/* Source locations and map names as the program passed them: what
 * clang emits is always readable, but a hand-written or corrupted call
 * can pass any pointer.  Where they will be read (messages, traces,
 * INFO output, observers), an unreadable one is treated as absent, with
 * a trace note, so reading them never faults. */
#include "config.h"
#include "doors.h"
#include "safemem.h"
#include "trace.h"

ident_t *rt_loc_readable(ident_t *loc) {
  if (!loc)
    return NULL;
  ident_t copy;
  if (rt_safe_copy(&copy, loc, sizeof copy) != (ssize_t)sizeof copy ||
      (copy.psource && !rt_string_readable(copy.psource))) {
    RT_TRACE(1, "source location " OMPEMU_PTR " (ident_t) is unreadable: "
             "treated as absent", OMPEMU_P(loc));
    return NULL;
  }
  return loc;
}

void rt_args_readable(struct rt_args *a) {
  a->loc = rt_loc_readable(a->loc);
  if (!a->names || a->n <= 0)
    return;
  int ok = rt_readable(a->names, (size_t)a->n * sizeof *a->names);
  for (int32_t i = 0; ok && i < a->n; i++)
    ok = !a->names[i] || rt_string_readable(a->names[i]);
  if (!ok) {
    RT_TRACE(1, "map names " OMPEMU_PTR " of %d arguments are unreadable: "
             "treated as absent", OMPEMU_P(a->names), (int)a->n);
    a->names = NULL;
  }
}
