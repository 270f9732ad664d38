/* Source locations and map names as the program passed them: what
 * clang emits is always readable, but a hand-written or corrupted call
 * can pass any pointer.  Where they will be read (messages, traces,
 * INFO output, observers), an unreadable one is treated as absent, with
 * a trace note, so reading them never faults. */
#include "config.h"
#include "doors.h"
#include "safemem.h"
#include "trace.h"

#include <stdatomic.h>

/* Keys found readable: an ident_t's address, a names array's address with
 * its count in the top bits.  Compilers pass the same static ones at every
 * construct, so each is read through the system (process_vm_readv, some
 * microseconds) once, not at every launch.  A key is never taken back: an
 * object unloaded and another loaded at the same address is the one case
 * where that is wrong.  Lost races only cost a second look. */
#define SEEN_SLOTS 4096
#define SEEN_PROBES 8
static _Atomic uintptr_t seen[SEEN_SLOTS];

static size_t seen_slot(uintptr_t key) {
  return (size_t)(((uint64_t)key * 0x9e3779b97f4a7c15ull) >> 52);
}

static int seen_has(uintptr_t key) {
  for (size_t k = 0, j = seen_slot(key); k < SEEN_PROBES; k++) {
    uintptr_t v = atomic_load_explicit(&seen[(j + k) % SEEN_SLOTS],
                                       memory_order_relaxed);
    if (v == key)
      return 1;
    if (!v)
      return 0;
  }
  return 0;
}

static void seen_add(uintptr_t key) {
  for (size_t k = 0, j = seen_slot(key); k < SEEN_PROBES; k++) {
    uintptr_t none = 0;
    _Atomic uintptr_t *s = &seen[(j + k) % SEEN_SLOTS];
    if (atomic_compare_exchange_strong(s, &none, key) || none == key)
      return;
  }
}

ident_t *rt_loc_readable(ident_t *loc) {
  if (!loc || seen_has((uintptr_t)loc))
    return loc;
  ident_t copy;
  if (rt_safe_copy(&copy, loc, sizeof copy) != (ssize_t)sizeof copy ||
      (copy.psource && !rt_string_readable(copy.psource))) {
    RT_TRACE(1, "source location " OMPEMU_PTR " (ident_t) is unreadable: "
             "treated as absent", OMPEMU_P(loc));
    return NULL;
  }
  seen_add((uintptr_t)loc);
  return loc;
}

void rt_args_readable(struct rt_args *a) {
  a->loc = rt_loc_readable(a->loc);
  if (!a->names || a->n <= 0)
    return;
  /* User addresses fit in 47 bits: the count goes above them. */
  uintptr_t key = a->n < (1 << 16) ? (uintptr_t)a->names |
                                         (uintptr_t)a->n << 48
                                   : 0;
  if (key && seen_has(key))
    return;
  int ok = rt_readable(a->names, (size_t)a->n * sizeof *a->names);
  for (int32_t i = 0; ok && i < a->n; i++)
    ok = !a->names[i] || rt_string_readable(a->names[i]);
  if (!ok) {
    RT_TRACE(1, "map names " OMPEMU_PTR " of %d arguments are unreadable: "
             "treated as absent", OMPEMU_P(a->names), (int)a->n);
    a->names = NULL;
  } else if (key) {
    seen_add(key);
  }
}
