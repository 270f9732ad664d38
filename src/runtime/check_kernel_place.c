/* ompemu_describe_kernel (exported under OMPEMU_PRIVATE): the source
 * location of the construct that launched a kernel, for the emu plugin's
 * fault handler, so that a fault in device code names its construct the
 * way every other finding does ("kernel K at t.f90:15").  In check mode
 * each kernel's device entry is recorded with its construct's "file:line"
 * as it is launched; the handler runs on the faulting thread, in a signal
 * handler, so the table is read without a lock: slots are only ever
 * filled, the place (interned, kept until exit) before the entry that
 * publishes it. */
#include "config.h"
#include "check.h"

#include <stdatomic.h>
#include <stdio.h>

/* Distinct kernels remembered; past that, later ones go unnamed. */
#define SLOTS 4096

static struct {
  _Atomic(const void *) entry;
  _Atomic(const char *) where;
} slot[SLOTS];

/* ENTRY's slot, or the empty one where it would go; -1 if neither. */
static long find(const void *entry) {
  uintptr_t a = (uintptr_t)entry;
  for (size_t i = (a >> 4 ^ a >> 16) % SLOTS, n = 0; n < SLOTS;
       i = (i + 1) % SLOTS, n++) {
    const void *e = atomic_load_explicit(&slot[i].entry, memory_order_acquire);
    if (!e || e == entry)
      return (long)i;
  }
  return -1;
}

void check_kernel_place(const void *entry, const char *where) {
  /* A loop launches one kernel over and over: one compare. */
  static const void *last;
  if (!entry || !where || entry == last)
    return;
  last = entry;
  long i = find(entry);
  /* A kernel has one construct: its first place stays. */
  if (i < 0 || atomic_load_explicit(&slot[i].entry, memory_order_relaxed))
    return;
  atomic_store_explicit(&slot[i].where, where, memory_order_relaxed);
  atomic_store_explicit(&slot[i].entry, entry, memory_order_release);
}

RT_EXPORT int ompemu_describe_kernel(const void *entry, char *buf,
                                     size_t len) {
  if (!buf || !len)
    return -1;
  buf[0] = '\0';
  long i = entry ? find(entry) : -1;
  if (i < 0 || !atomic_load_explicit(&slot[i].entry, memory_order_acquire))
    return -1;
  snprintf(buf, len, "%s",
           atomic_load_explicit(&slot[i].where, memory_order_relaxed));
  return 0;
}
