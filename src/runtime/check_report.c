/* The data-movement report (`ompemu-run --report`, OMPEMU_REPORT=1, and
 * at the end of --check; docs/check.md, "The data-movement report"):
 * transfers that moved nothing new, by variable and construct, with byte
 * totals.
 *   repeated transfers  a copy to the device of bytes identical to what
 *                       the device last got from or gave back for that host
 *                       range (the data went again, or could have stayed
 *                       mapped)
 *   round trips         a copy back of bytes identical to what was sent
 *                       (no kernel changed them: `to` would have done)
 *   unused allocations  a mapping whose device copy no kernel received, as
 *                       an argument or through an attached pointer
 *   left mapped         a mapping still there at exit: enter data without
 *                       an exit data that removes it (device memory held
 *                       until the end)
 *   stale data kept     a map with `to` of data still mapped that copied
 *                       nothing although the host had changed it (check
 *                       mode: OpenMP allows it, so it is no finding)
 * Contents are compared by a 64-bit hash per (device, host range)
 * (check_copy_hash). */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"
#include "locstr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum rclass { R_REPEAT, R_ROUNDTRIP, R_UNUSED, R_LEFT, R_STALE,
              R_NCLASSES };
static const char *class_title[R_NCLASSES] = {
    "repeated transfers to the device (it already had these bytes)",
    "round trips (copied back unchanged: no kernel changed them)",
    "device allocations no kernel used",
    "mappings still present at exit (no exit data removed them)",
    "stale device data kept (map with to of data still mapped, changed on "
    "the host since: `target update to` or map(always, to:) sends it)"};

/* Last known contents per (device, host begin, size): 32 bytes, two a
 * cache line. */
struct hist {
  uintptr_t hst, size;
  uint64_t hash; /* 0: none yet */
  int32_t dev;
  int32_t used;
};
static struct hist *htab;
static size_t hcap, hused;

/* One line of the report: a class, a variable, a construct.  Found by a
 * hash of (class, map name or host range, construct), so a program with
 * many mappings pays O(1) per line; the words are made once per line. */
struct line {
  enum rclass cls;
  const char *var;   /* interned map name, or NULL (then HST, SIZE) */
  uintptr_t hst, size;
  const char *where; /* interned "file:line" */
  char *label;       /* the variable in words (owned) */
  unsigned long count;
  unsigned long long bytes;
};
#define MAX_LINES 4096
#define LINE_SLOTS (2 * MAX_LINES)
static struct line *lines;
static size_t nlines;
static int32_t *line_slot; /* LINE_SLOTS indexes into LINES, -1 empty */
/* Per class, 1 + the index of the line counted last (0: none): a loop
 * counts the same line again and again. */
static size_t last_line[R_NCLASSES];
static unsigned long long other_bytes[R_NCLASSES];
static unsigned long other_count[R_NCLASSES];
static unsigned long long total_bytes[R_NCLASSES];
static unsigned long total_count[R_NCLASSES];
static unsigned long long bytes_to, bytes_from;
static unsigned long copies_to, copies_from;
static uint64_t epoch;

/* A slot of a table of CAP from a few words (a multiply-xorshift each:
 * check_hash's set-up for whole chunks costs more than such a key). */
static size_t key_slot(const uint64_t *k, int n, size_t cap) {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < n; i++) {
    h = (h ^ k[i]) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h & (cap - 1); /* CAP: a power of two */
}

/* Ranges whose starts lie within HIST_RUN * 64 bytes of one another (of
 * one size and device) have slots in a row, in the order of their starts:
 * a loop over the sections of an array reads the table in order. */
#define HIST_RUN 8
static inline size_t hslot(int32_t dev, uintptr_t hst, uintptr_t size,
                           size_t cap) {
  /* One multiply-xorshift of the words summed with odd weights: a slot is
   * computed per copy, and where it lands shows in no output. */
  uint64_t h = (hst / 64 / HIST_RUN + size * 0x9e3779b97f4a7c15ull +
                (uint64_t)dev * 0xc2b2ae3d27d4eb4full) *
               0xff51afd7ed558ccdull;
  h ^= h >> 32;
  return ((h & (cap / HIST_RUN - 1)) * HIST_RUN + hst / 64 % HIST_RUN) &
         (cap - 1);
}

/* Whether VAR names the variable (flang's "unknown" does not); the last
 * answer is kept (names are interned: the same pointer each time). */
static int named(const char *var) {
  static const char *last;
  static int last_named;
  if (var != last) {
    char ex[16];
    last_named = var && (var[0] != ';' || map_name_expr(var, ex, sizeof ex));
    last = var;
  }
  return last_named;
}

/* The history of (DEV, HST, SIZE); J: its slot (hslot) in the table as
 * it is, or a value >= hcap. */
static struct hist *history(int32_t dev, uintptr_t hst, uintptr_t size,
                            size_t j) {
  if (hused * 2 >= hcap) {
    j = (size_t)-1;
    size_t nc = hcap ? hcap * 2 : 1024;
    struct hist *t = calloc(nc, sizeof *t);
    if (!t)
      return NULL;
    for (size_t i = 0; i < hcap; i++)
      if (htab[i].used) {
        size_t j = hslot(htab[i].dev, htab[i].hst, htab[i].size, nc);
        while (t[j].used)
          j = (j + 1) & (nc - 1);
        t[j] = htab[i];
      }
    free(htab);
    htab = t;
    hcap = nc;
  }
  if (j >= hcap)
    j = hslot(dev, hst, size, hcap);
  while (htab[j].used && !(htab[j].hst == hst && htab[j].size == size &&
                           htab[j].dev == dev))
    j = (j + 1) & (hcap - 1);
  if (!htab[j].used) {
    htab[j].hst = hst;
    htab[j].size = size;
    htab[j].dev = dev;
    htab[j].used = 1;
    hused++;
  }
  return &htab[j];
}

static void find_line(enum rclass c, const char *var, uintptr_t hst,
                      uintptr_t size, const char *where, uintptr_t bytes);

/* A transfer of BYTES counted in its line (the line counted last in its
 * class here, else find_line: a loop counts the same line again).  Inline
 * in each caller: GCC had kept it apart, a frame for a few compares. */
static inline __attribute__((always_inline)) void
add_line(enum rclass c, const char *var, uintptr_t hst, uintptr_t size,
         const char *where, uintptr_t bytes) {
  total_bytes[c] += bytes;
  total_count[c]++;
  /* a name: the same line whatever the host range */
  if (named(var))
    hst = size = 0;
  if (last_line[c]) {
    struct line *l = &lines[last_line[c] - 1];
    if (l->var == var && l->hst == hst && l->size == size &&
        l->where == where) {
      l->count++;
      l->bytes += bytes;
      return;
    }
  }
  find_line(c, var, hst, size, where, bytes);
}

static __attribute__((noinline)) void
find_line(enum rclass c, const char *var, uintptr_t hst, uintptr_t size,
          const char *where, uintptr_t bytes) {
  if (!line_slot) {
    lines = calloc(MAX_LINES, sizeof *lines);
    line_slot = malloc(LINE_SLOTS * sizeof *line_slot);
    if (!lines || !line_slot) {
      free(lines);
      free(line_slot);
      lines = NULL;
      line_slot = NULL;
      return;
    }
    memset(line_slot, 0xff, LINE_SLOTS * sizeof *line_slot);
  }
  uint64_t k[5] = {(uint64_t)c, (uintptr_t)var, hst, size, (uintptr_t)where};
  size_t j = key_slot(k, 5, LINE_SLOTS);
  for (; line_slot[j] >= 0; j = (j + 1) & (LINE_SLOTS - 1)) {
    struct line *l = &lines[line_slot[j]];
    if (l->cls == c && l->var == var && l->hst == hst && l->size == size &&
        l->where == where) {
      l->count++;
      l->bytes += bytes;
      last_line[c] = (size_t)line_slot[j] + 1;
      return;
    }
  }
  /* The table full: counted apart, the label not even made (formatting
   * it was half of an enter+exit pair's --check cost with 10 000 ranges
   * live). */
  char label[400], *copy = NULL;
  if (nlines < MAX_LINES) {
    check_var_words(var, hst, size, label, sizeof label);
    copy = strdup(label);
  }
  if (!copy) {
    other_bytes[c] += bytes;
    other_count[c]++;
    return;
  }
  lines[nlines] = (struct line){c, var, hst, size, where, copy, 1, bytes};
  line_slot[j] = (int32_t)nlines++;
  last_line[c] = nlines;
}

/* A copy of SIZE bytes at host HST of block B whose bytes hash as the
 * last copy of that range either way did: a line of KIND. */
static void note_copy(enum rclass kind, struct cregion *r, struct cblock *b,
                      uintptr_t hst, uintptr_t size, const char *var,
                      const uint64_t *hash) {
  if (!report_hashes(b, size))
    return;
  /* The range's history (a miss with many ranges) is fetched while the
   * bytes are hashed. */
  size_t j = hcap ? hslot(b->dev, hst, size, hcap) : (size_t)-1;
  if (hcap)
    __builtin_prefetch(&htab[j]);
  uint64_t h = hash ? *hash : check_copy_hash((const void *)hst, size);
  struct hist *x = history(b->dev, hst, size, j);
  if (!x)
    return;
  if (x->hash == h) {
    /* Interned names never change: the last answer holds. */
    static const char *last_key, *last_name;
    const char *key = var ? var : b->var;
    if (key != last_key || !last_name) {
      last_name = check_intern(key);
      last_key = key;
    }
    add_line(kind, last_name, hst, size, r ? r->where : "unknown location",
             size);
  }
  x->hash = h;
}

void report_stale_kept(struct cregion *r, const char *var, uintptr_t hst,
                       uintptr_t size) {
  add_line(R_STALE, check_intern(var), hst, size,
           r ? r->where : "unknown location", size);
}

void report_copy_to(struct cregion *r, struct cblock *b, uintptr_t hst,
                    uintptr_t size, const char *var, const uint64_t *hash) {
  bytes_to += size;
  copies_to++;
  note_copy(R_REPEAT, r, b, hst, size, var, hash);
}

void report_copy_from(struct cregion *r, struct cblock *b, uintptr_t hst,
                      uintptr_t size, const char *var, const uint64_t *hash) {
  bytes_from += size;
  copies_from++;
  note_copy(R_ROUNDTRIP, r, b, hst, size, var, hash);
}

void report_block_gone(struct cblock *b) {
  if (b->kind != CB_MAPPED || b->used || !b->size)
    return;
  add_line(R_UNUSED, b->var, b->hst, b->size,
           b->mapped_at ? b->mapped_at : "unknown location", b->size);
}

void report_block_left(struct cblock *b) {
  /* Not the pointer of a PTR_AND_OBJ entry (mapped without a name next
   * to its pointee): LLVM 14's exit data leaves it mapped itself. */
  if (!b->var && b->size == sizeof(void *) &&
      (b->maptype & OMP_TGT_MAPTYPE_PTR_AND_OBJ))
    return;
  if (b->kind == CB_MAPPED && b->size)
    add_line(R_LEFT, b->var, b->hst, b->size,
             b->mapped_at ? b->mapped_at : "unknown location", b->size);
}

/* Mark B and what it points to (attached pointees) as used. */
static void mark_used(struct cblock *b) {
  if (!b || b->mark == epoch)
    return;
  b->mark = epoch;
  b->used = 1;
  for (struct cedge *e = b->edges; e; e = e->next)
    mark_used(cb_find(b->dev, e->to));
}

void report_kernel(struct obs_event *e) {
  epoch++;
  for (int32_t k = 0; e->args && k < e->nargs; k++) {
    if (check_arg_narrow_literal(e, k))
      continue;
    uintptr_t v = (uintptr_t)e->args[k] + (e->offs ? (uintptr_t)e->offs[k] : 0);
    struct cblock *b = cb_find(e->device, (uintptr_t)e->args[k]);
    mark_used(b ? b : cb_find(e->device, v));
  }
}

static int cmp_lines(const void *a, const void *b) {
  const struct line *x = a, *y = b;
  if (x->cls != y->cls)
    return x->cls < y->cls ? -1 : 1;
  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  int c = strcmp(x->label, y->label);
  return c ? c : strcmp(x->where, y->where);
}

static int gone_at_exit(struct cblock *b, void *arg) {
  (void)arg;
  report_block_gone(b);
  report_block_left(b);
  return 0;
}

void report_print(void) {
  cb_foreach(gone_at_exit, NULL); /* mappings still there at exit */
  memset(last_line, 0, sizeof last_line); /* the lines move */
  if (nlines)
    qsort(lines, nlines, sizeof *lines, cmp_lines);
  ompemu_raw("ompemu report: data movement\n");
  ompemu_raw("  to the device: %lu copies, %llu bytes; to the host: %lu "
             "copies, %llu bytes\n", copies_to, bytes_to, copies_from,
             bytes_from);
  for (int c = 0; c < R_NCLASSES; c++) {
    ompemu_raw("  %s: %lu, %llu bytes\n", class_title[c], total_count[c],
               total_bytes[c]);
    int shown = 0;
    for (size_t i = 0; i < nlines; i++) {
      if (lines[i].cls != (enum rclass)c)
        continue;
      if (shown++ == 10) {
        ompemu_raw("    ... (more lines left out)\n");
        break;
      }
      ompemu_raw("    %12llu bytes  %s, %lu time%s at %s\n", lines[i].bytes,
                 lines[i].label, lines[i].count,
                 lines[i].count == 1 ? "" : "s", lines[i].where);
    }
    if (other_count[c])
      ompemu_raw("    %12llu bytes  in %lu more transfers (not itemized)\n",
                 other_bytes[c], other_count[c]);
  }
}
