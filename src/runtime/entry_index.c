/* The process-wide index host entry address -> (library, entry index) over
 * every registered library, sorted by address, so a launch finds its
 * kernel in O(log n) under a read lock that launches from many threads
 * share. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"
#include "entry_table.h"

#include <stdlib.h>

struct index_row {
  void *addr;
  struct rt_lib *lib;
  int idx;
};
static pthread_rwlock_t rt_index_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct index_row *index_rows; /* under rt_index_lock */
static size_t index_n;
/* The host vtables of vtable entries, sorted by address (under the lock). */
struct vtable_row {
  uintptr_t lo, hi;
};
static struct vtable_row *vtables;
static size_t nvtables;

static int index_cmp(const void *a, const void *b) {
  const struct index_row *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int rt_index_rebuild(void) {
  size_t n = 0;
  int rc = 0;
  for (struct rt_lib *l = rt_state.libs; l; l = l->next)
    n += (size_t)(l->host_end - l->host_begin);
  struct index_row *rows = n ? malloc(n * sizeof *rows) : NULL;
  if (n && !rows) {
    ompemu_error("ompemu", "out of memory indexing %zu host entries: no "
                 "target region can be launched", n);
    n = 0;
    rc = -1;
  }
  size_t k = 0;
  for (struct rt_lib *l = rt_state.libs; l && rows; l = l->next)
    for (__tgt_offload_entry *e = l->host_begin; e < l->host_end; e++)
      rows[k++] = (struct index_row){e->addr, l, (int)(e - l->host_begin)};
  if (rows)
    qsort(rows, n, sizeof *rows, index_cmp);
  size_t nv = 0;
  for (size_t i = 0; i < k; i++)
    nv += !!(rows[i].lib->host_begin[rows[i].idx].flags & RT_ENTRY_FLAG_VTABLE);
  struct vtable_row *vt = nv ? malloc(nv * sizeof *vt) : NULL;
  if (nv && !vt) {
    ompemu_error("ompemu", "out of memory indexing %zu vtable entries", nv);
    nv = 0;
    rc = -1;
  }
  nv = 0;
  for (size_t i = 0; i < k && vt; i++) {
    const __tgt_offload_entry *e = &rows[i].lib->host_begin[rows[i].idx];
    if (e->flags & RT_ENTRY_FLAG_VTABLE)
      vt[nv++] = (struct vtable_row){(uintptr_t)e->addr,
                                     (uintptr_t)e->addr + e->size};
  }
  pthread_rwlock_wrlock(&rt_index_lock);
  free(index_rows);
  index_rows = rows;
  index_n = n;
  free(vtables);
  vtables = vt;
  nvtables = nv;
  pthread_rwlock_unlock(&rt_index_lock);
  return rc;
}

void rt_index_free(void) {
  pthread_rwlock_wrlock(&rt_index_lock);
  free(index_rows);
  index_rows = NULL;
  index_n = 0;
  free(vtables);
  vtables = NULL;
  nvtables = 0;
  pthread_rwlock_unlock(&rt_index_lock);
}

void rt_index_rdlock(void) { pthread_rwlock_rdlock(&rt_index_lock); }
void rt_index_wrlock(void) { pthread_rwlock_wrlock(&rt_index_lock); }
void rt_index_unlock(void) { pthread_rwlock_unlock(&rt_index_lock); }

int rt_index_find_locked(void *host_ptr, struct rt_lib **lib, int *idx) {
  size_t lo = 0, hi = index_n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (index_rows[mid].addr < host_ptr)
      lo = mid + 1;
    else
      hi = mid;
  }
  /* Several entries may share an address (none in practice): take the
   * first. */
  if (lo < index_n && index_rows[lo].addr == host_ptr) {
    *lib = index_rows[lo].lib;
    *idx = index_rows[lo].idx;
    return 0;
  }
  return -1;
}

int rt_index_find(void *host_ptr, struct rt_lib **lib, int *idx) {
  pthread_rwlock_rdlock(&rt_index_lock);
  int rc = rt_index_find_locked(host_ptr, lib, idx);
  pthread_rwlock_unlock(&rt_index_lock);
  return rc;
}

/* Is X inside a host vtable that a vtable entry (clang 22's declare target
 * indirect on virtual functions) registered?  A real runtime translates
 * those, so device code reading one is no host access. */
int rt_index_in_vtable(uintptr_t x) {
  int in = 0;
  /* Only clang 22's vtable entries register any: most processes have
   * none, and the checker asks for every host-looking word it scans. */
  if (!__atomic_load_n(&nvtables, __ATOMIC_ACQUIRE))
    return 0;
  pthread_rwlock_rdlock(&rt_index_lock);
  size_t lo = 0, hi = nvtables;
  while (lo < hi && !in) {
    size_t mid = lo + (hi - lo) / 2;
    if (x < vtables[mid].lo)
      hi = mid;
    else if (x >= vtables[mid].hi)
      lo = mid + 1;
    else
      in = 1;
  }
  pthread_rwlock_unlock(&rt_index_lock);
  return in;
}
