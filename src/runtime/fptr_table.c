/* The declare-target-indirect table of a device
 * (docs/indirect-functions.md, docs/design.md contract 5): the
 * {host_ptr, tgt_ptr} pairs of the FPTR entries of every library loaded on
 * the device, sorted by host_ptr, sent with __tgt_rtl_set_function_ptr_map
 * whenever a library is loaded on or unregistered from the device.  Called
 * under the device's lock. */
#define _GNU_SOURCE
#include "config.h"
#include "core.h"

#include <stdlib.h>
#include <string.h>

struct fptr_row {
  __omp_offloading_fptr_map_ty pair;
  const char *name, *lib;
};

static int row_cmp(const void *a, const void *b) {
  const struct fptr_row *x = a, *y = b;
  if (x->pair.host_ptr != y->pair.host_ptr)
    return x->pair.host_ptr < y->pair.host_ptr ? -1 : 1;
  if (x->pair.tgt_ptr != y->pair.tgt_ptr)
    return x->pair.tgt_ptr < y->pair.tgt_ptr ? -1 : 1;
  return 0;
}

long rt_fptr_sort(__omp_offloading_fptr_map_ty *pairs, const char **names,
                  const char **libs, size_t n) {
  struct fptr_row *rows = malloc((n ? n : 1) * sizeof *rows);
  if (!rows) {
    ompemu_error("ompemu", "out of memory sorting the indirect function "
                 "table (%zu entries)", n);
    return -1;
  }
  for (size_t i = 0; i < n; i++)
    rows[i] = (struct fptr_row){pairs[i], names ? names[i] : NULL,
                                libs ? libs[i] : NULL};
  /* qsort is not stable, but equal rows are interchangeable for us. */
  qsort(rows, n, sizeof *rows, row_cmp);
  size_t k = 0;
  long rc = 0;
  for (size_t i = 0; i < n; i++) {
    if (k && rows[k - 1].pair.host_ptr == rows[i].pair.host_ptr) {
      if (rows[k - 1].pair.tgt_ptr == rows[i].pair.tgt_ptr)
        continue; /* exact duplicate */
      ompemu_error("ompemu", "indirect function table: host function "
                   OMPEMU_PTR " has two device functions: " OMPEMU_PTR
                   " (%s in %s) and " OMPEMU_PTR " (%s in %s)",
                   OMPEMU_P(rows[i].pair.host_ptr),
                   OMPEMU_P(rows[k - 1].pair.tgt_ptr),
                   rows[k - 1].name ? rows[k - 1].name : "?",
                   rows[k - 1].lib ? rows[k - 1].lib : "?",
                   OMPEMU_P(rows[i].pair.tgt_ptr),
                   rows[i].name ? rows[i].name : "?",
                   rows[i].lib ? rows[i].lib : "?");
      rc = -1;
      continue;
    }
    rows[k++] = rows[i];
  }
  for (size_t i = 0; i < k; i++) {
    pairs[i] = rows[i].pair;
    if (names)
      names[i] = rows[i].name;
    if (libs)
      libs[i] = rows[i].lib;
  }
  free(rows);
  return rc ? -1 : (long)k;
}

int rt_fptr_update(struct rt_device *d) {
  struct rt_device_core *c = core_of(d);
  size_t n = 0;
  for (struct rt_loaded *x = d->loaded; x; x = x->next)
    for (__tgt_offload_entry *h = x->lib->host_begin; h < x->lib->host_end; h++)
      if ((h->flags & OMP_DECLARE_TARGET_FPTR) && x->tgt[h - x->lib->host_begin])
        n++;
  if (n == 0 && !c->fptr_sent)
    return 0; /* nothing to say, and nothing was said before */
  __omp_offloading_fptr_map_ty *pairs = malloc((n ? n : 1) * sizeof *pairs);
  const char **names = malloc((n ? n : 1) * sizeof *names);
  const char **libs = malloc((n ? n : 1) * sizeof *libs);
  if (!pairs || !names || !libs) {
    free(pairs);
    free(names);
    free(libs);
    ompemu_error("ompemu", "device %d: out of memory for %zu indirect "
                 "functions", d->id, n);
    return -1;
  }
  size_t k = 0;
  for (struct rt_loaded *x = d->loaded; x; x = x->next)
    for (__tgt_offload_entry *h = x->lib->host_begin; h < x->lib->host_end; h++) {
      void *tgt = x->tgt[h - x->lib->host_begin];
      if (!(h->flags & OMP_DECLARE_TARGET_FPTR) || !tgt)
        continue;
      pairs[k] = (__omp_offloading_fptr_map_ty){(int64_t)(intptr_t)h->addr,
                                                (int64_t)(intptr_t)tgt};
      names[k] = h->name;
      libs[k] = rt_lib_name(x->lib);
      k++;
    }
  long m = rt_fptr_sort(pairs, names, libs, n);
  int rc = 0;
  if (m < 0) {
    /* rt_fptr_sort named the conflict. */
    RT_TRACE(1, "device %d: indirect function table not sent", d->id);
    rc = -1;
  } else {
    RT_TRACE(1, "device %d: indirect function table, %ld entries (sorted):",
             d->id, m);
    for (long i = 0; i < m; i++)
      RT_TRACE(1, "  " OMPEMU_PTR " -> " OMPEMU_PTR "  %s", OMPEMU_P(pairs[i].host_ptr),
               OMPEMU_P(pairs[i].tgt_ptr), names[i] ? names[i] : "?");
    if (!d->plugin->set_function_ptr_map) {
      RT_TRACE(1, "device %d: plugin %s has no __tgt_rtl_set_function_ptr_map:"
               " table not sent", d->id, d->plugin->name);
    } else if (d->plugin->set_function_ptr_map(d->local_id, (uint64_t)m,
                                               pairs) != OFFLOAD_SUCCESS) {
      ompemu_error("ompemu", "device %d: plugin %s refused the indirect "
                   "function table (%ld entries at " OMPEMU_PTR ")", d->id,
                   d->plugin->name, m, OMPEMU_P(pairs));
      rc = -1;
    }
    free(c->fptr);
    c->fptr = pairs;
    c->nfptr = (size_t)m;
    c->fptr_sent = 1;
    pairs = NULL;
  }
  free(pairs);
  free(names);
  free(libs);
  return rc;
}
