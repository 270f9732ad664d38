/* Check mode: device reads before the start of a mapped block.  A block
 * ends at a guard page, so a read past its end faults; before its start
 * the block's first page holds a few bytes of slack, so a read there
 * (`map(to: a[1:n-1])` and a kernel that reads a[0]) reads the poison and
 * nothing faults.  A kernel can only do that through an address before
 * its block: an argument that is the base of a section with a lower bound
 * (the section's start plus a negative offset), or a pointer the runtime
 * attached in an argument's block (a Fortran descriptor's base address of
 * a section a(1:n) of a(0:n)).  For such a block its slack is watched
 * exactly for the kernel
 * (ompemu_watch_unwritten ON 3: every access to that page is stepped, one
 * that reads the slack recorded), and a read is a finding naming the
 * variable, the kernel and the construct.  A write there is found when
 * the block is read back or freed (the plugin's markers).
 *
 * Cost: only kernels given such a base pay, a construct whose kernel
 * read no slack is not watched again for that variable
 * (check_clean_pair), as for reads of unwritten memory, and the plugin
 * gives a watch up after WATCH_STEP_BUDGET stepped accesses (watch.h). */
#include "config.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static uintptr_t page_size(void) {
  static uintptr_t pg;
  if (!pg)
    pg = (uintptr_t)sysconf(_SC_PAGESIZE);
  return pg;
}

/* The slack of B, [*LO, B->tgt): 0, or -1 when it has none. */
static int slack_of(const struct cblock *b, uintptr_t *lo) {
  *lo = b->tgt & ~(page_size() - 1);
  return *lo < b->tgt ? 0 : -1;
}

static void watch_slack(struct cregion *r, struct cblock *b) {
  uintptr_t lo;
  if (b->kind != CB_MAPPED || b->before_start_reported ||
      slack_of(b, &lo) != 0 || check_clean_pair(r->where, b, CLEAN_SLACK, 0))
    return;
  for (int i = 0; i < r->nslack; i++)
    if (r->slack[i] == b->tgt)
      return;
  /* A block watched for reads of its unwritten bytes (data_kernel_watch)
   * is watched page by page, each page until its first access; stepping
   * every access to its first page would hide those reads from it. */
  for (int i = 0; i < r->nwatched; i++)
    if (r->watched[i] == b->tgt)
      return;
  uintptr_t *s = realloc(r->slack, (size_t)(r->nslack + 1) * sizeof *s);
  if (!s)
    return;
  r->slack = s;
  if (check_dev_watch(b->dev, lo, b->tgt - lo, 3, NULL) == 0)
    r->slack[r->nslack++] = b->tgt;
}

struct cblock *slack_block(int32_t dev, uintptr_t v) {
  uintptr_t end = (v | (page_size() - 1)) + 1;
  if (cb_find(dev, v))
    return NULL;
  /* Doubling steps up to the page's end: a block starting after V in the
   * same page is hit unless it is smaller than the step that passes it. */
  for (uintptr_t d = 1; v + d < end; d *= 2) {
    struct cblock *b = cb_find(dev, v + d);
    if (b)
      return b->tgt > v && b->kind == CB_MAPPED ? b : NULL;
  }
  return NULL;
}

void slack_kernel_watch(struct cregion *r, struct obs_event *e) {
  for (int32_t k = 0; e->args && k < e->nargs; k++) {
    uintptr_t start = (uintptr_t)e->args[k];
    struct cblock *b = cb_find(e->device, start);
    if (e->offs && e->offs[k] < 0 && !check_arg_narrow_literal(e, k) && b &&
        start + (uintptr_t)e->offs[k] < b->tgt &&
        start + (uintptr_t)e->offs[k] < start)
      watch_slack(r, b);
    /* A pointer the runtime attached in the argument's block that points
     * into another block's slack: a Fortran descriptor of a section with
     * a lower bound (its base address is that of the array's first
     * element, before the section's block). */
    for (struct cedge *g = b ? b->edges : NULL; g; g = g->next) {
      struct cblock *s = slack_block(e->device, g->to);
      if (s)
        watch_slack(r, s);
    }
  }
}

void slack_kernel_unwatch(struct cregion *r) {
  for (int i = 0; i < r->nslack; i++) {
    struct cblock *b = cb_find(r->dev, r->slack[i]);
    uintptr_t lo = r->slack[i] & ~(page_size() - 1);
    int64_t off = -1;
    if (check_dev_watch(r->dev, lo, r->slack[i] - lo, 0, &off) != 0 || !b ||
        b->before_start_reported)
      continue;
    if (off < 0) {
      check_clean_pair(r->where, b, CLEAN_SLACK, 1);
      continue;
    }
    b->before_start_reported = 1;
    char v[400], mt[64];
    /* No offset: with teams and threads, which read comes first depends
     * on timing. */
    check_finding("out-of-bounds device read: kernel %s at %s read device "
                  "memory before the start of %s, mapped with map(%s) at %s:"
                  " the kernel indexes it from below the section's lower "
                  "bound (device %d block " OMPEMU_PTR ")",
                  r->kernel ? r->kernel : "?", r->where,
                  check_block_words(b, v, sizeof v),
                  check_maptype_words(b->maptype, 0, mt, sizeof mt),
                  b->mapped_at ? b->mapped_at : "unknown location",
                  (int)b->dev, OMPEMU_P(b->tgt));
  }
  free(r->slack);
  r->slack = NULL;
  r->nslack = 0;
}
