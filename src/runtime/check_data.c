/* Findings about the data itself (docs/check.md): results thrown away (a
 * mapping removed without copying back although the device copy changed:
 * `to` where `tofrom` was needed), an exit data whose `from` copied
 * nothing because another reference keeps the mapping, stale data (a
 * `to` map that copies nothing because the data is still mapped while the
 * host changed it; a declare-target global whose host copy changed since
 * the device last got it), uninitialised device memory (copied back, or
 * read by a kernel that received only poison), a kernel given a pointer
 * into a mapping that was removed, and `target update` of data that is not
 * mapped.
 *
 * Device contents are read through the plugin (check_dev_read); a block's
 * "expected" bytes are what the runtime last put there or got from there
 * (check.c keeps them), so "the device changed" means the device bytes
 * differ from them.  Words where the device holds a device pointer or an
 * alias of a host pointer are not compared with the host's. */
#define _GNU_SOURCE
#include "config.h"
#include "callsite.h"
#include "check.h"
#include "dwarf_member.h"
#include "locstr.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The emu device's poison in check mode: this 32-bit word, aligned on the
 * device address (docs/check.md, "Uninitialised device memory"). */
#define POISON_WORD 0xFFF5A5A5u
/* Poisoned bytes shorter than this in a row are taken for padding between
 * the members of a struct, which no kernel writes. */
#define MIN_POISON_RUN 8

/* The variable a map name names, for dwarf_member.c's questions about
 * its bytes: found on the first question. */
struct var_dwarf {
  const char *var;
  int tried, ok;
  char expr[256], path[1024];
  unsigned line;
  signed char *kinds; /* dw_byte_kinds (freed by var_dwarf_done) */
  uint64_t period;
};

static void var_dwarf_done(struct var_dwarf *v) { free(v->kinds); }

/* What byte OFF of V's storage is (dwarf_member.h: DW_BYTE_*). */
static int var_byte_kind(struct var_dwarf *v, uintptr_t off) {
  if (!v->tried) {
    char ln[32];
    v->tried = 1;
    v->ok = check_named(v->var) &&
            map_name_expr(v->var, v->expr, sizeof v->expr) &&
            rt_construct_ra &&
            callsite_object(rt_construct_ra, v->path, sizeof v->path);
    v->line = v->ok && loc_field(v->var, 2, ln, sizeof ln)
                  ? (unsigned)atoi(ln) : 0;
    if (v->ok)
      v->kinds = dw_byte_kinds(v->path, v->expr, v->line, &v->period);
  }
  return v->kinds ? v->kinds[off % v->period] : DW_BYTE_UNKNOWN;
}

/* The LEN bytes at OFF of V's storage that are not padding, which no
 * program writes. */
static uintptr_t data_bytes(struct var_dwarf *v, uintptr_t off,
                            uintptr_t len) {
  uintptr_t n = 0;
  for (uintptr_t k = 0; k < len; k++)
    n += var_byte_kind(v, off + k) != DW_BYTE_PADDING;
  return n;
}

/* Bytes of [HST, HST+N) (a copy of device [TGT, TGT+N), the storage map
 * name VAR names) in runs of at least MIN_POISON_RUN poisoned bytes, less
 * the padding of VAR's type. */
static uintptr_t poison_runs(uintptr_t hst, uintptr_t tgt, uintptr_t n,
                             const char *var) {
  struct var_dwarf v = {.var = var};
  uintptr_t total = 0, run = 0;
  uintptr_t skip = (4 - (tgt & 3)) & 3; /* to the first aligned word */
  for (uintptr_t k = skip; k <= n; k += 4) {
    uint32_t w = 0;
    if (k + 4 <= n)
      memcpy(&w, (const void *)(hst + k), 4);
    if (k + 4 <= n && w == POISON_WORD) {
      run += 4;
      continue;
    }
    if (run >= MIN_POISON_RUN)
      total += data_bytes(&v, k - run, run);
    run = 0;
  }
  var_dwarf_done(&v);
  return total;
}

/* A device pointer or an alias of a host pointer: not data to compare. */
static int pointer_word(uintptr_t v) {
  return hostptr_is_alias(v) || (v >= 0x10000 && cb_find_any(v) != NULL);
}

/* Bytes of A and DEV_SIDE (N each, at offset OFF of block B) that differ,
 * leaving out the words where the device holds a pointer: one the runtime
 * put there, or any address of device memory or alias. */
static uintptr_t differing(const unsigned char *a, const unsigned char *dev_side,
                           uintptr_t n, const struct cblock *b, uintptr_t off) {
  if (memcmp(a, dev_side, n) == 0)
    return 0;
  uintptr_t d = 0;
  for (uintptr_t k = 0; k < n; k++) {
    if (a[k] == dev_side[k])
      continue;
    uintptr_t w = (off + k) & ~(uintptr_t)7; /* the word, in the block */
    if (b && cb_is_pointer(b, w))
      continue;
    if (w >= off && w + 8 <= off + n) {
      uint64_t y;
      memcpy(&y, dev_side + (w - off), 8);
      if (pointer_word((uintptr_t)y))
        continue;
    }
    d++;
  }
  return d;
}

/* The device bytes of [TGT, TGT+N) in a new buffer, or NULL. */
static unsigned char *device_bytes(int32_t dev, uintptr_t tgt, uintptr_t n) {
  unsigned char *buf = malloc(n ? n : 1);
  if (buf && check_dev_read(dev, buf, tgt, n) != 0) {
    free(buf);
    buf = NULL;
  }
  return buf;
}

static const char *kernel_words(const struct cblock *b, char *buf, size_t len) {
  if (b->writer)
    snprintf(buf, len, "kernel %s (%s)", b->writer,
             b->writer_at ? b->writer_at : "unknown location");
  else if (b->last_kernel)
    snprintf(buf, len, "kernel %s (%s)", b->last_kernel,
             b->last_kernel_at ? b->last_kernel_at : "unknown location");
  else
    snprintf(buf, len, "device code");
  return buf;
}

void data_after_copy_from(struct cregion *r, struct cblock *b, uintptr_t tgt,
                          uintptr_t hst, uintptr_t size, const char *var) {
  if (!b || b->kind == CB_GLOBAL || b->uninit_reported || b->initialized)
    return;
  int64_t poisoned = check_dev_poisoned(b->dev, tgt, size);
  if (poisoned <= 0) {
    if (poisoned == 0 && tgt == b->tgt && size == b->size)
      b->initialized = 1;
    return;
  }
  uintptr_t runs = poison_runs(hst, tgt, size, var ? var : b->var);
  if (!runs)
    return;
  b->uninit_reported = 1;
  char v[400], mt[80], k[400], at[300];
  if (b->kind == CB_MAPPED)
    snprintf(mt, sizeof mt, " (map %s)",
             check_maptype_words(b->maptype, 0, v, sizeof v));
  else
    snprintf(mt, sizeof mt, "%s", "");
  if (r)
    snprintf(at, sizeof at, "at the %s at %s",
             check_region_words(r->kind, r->nowait), r->where);
  else
    snprintf(at, sizeof at, "by omp_target_memcpy");
  if (b->kind == CB_MAPPED)
    check_var_words(var ? var : b->var, hst, size, v, sizeof v);
  else
    check_block_words(b, v, sizeof v);
  check_finding("uninitialized device memory copied to the host: %lu of %lu "
                "bytes of %s%s that no copy or kernel wrote, %s; the last to "
                "run with it: %s (device %d block " OMPEMU_PTR ")",
                (unsigned long)runs, (unsigned long)size, v, mt, at,
                kernel_words(b, k, sizeof k), (int)b->dev, OMPEMU_P(b->tgt));
}

/* A mapping this small is one scalar (an int, a double, a double
 * complex): map(to:) gives the region its own copy, as firstprivate does,
 * and programs write that copy on purpose (docs/check.md). */
#define MAX_SCALAR 16

void data_before_free(struct cregion *r, struct cblock *b) {
  data_pending_flush(b);
  if (!r || b->kind != CB_MAPPED || !b->expect || b->lost_reported ||
      !b->last_kernel || !b->kernel_transfer || b->size <= MAX_SCALAR ||
      b->chose_back || check_synced(b)) /* the device bytes are known */
    return;
  /* The entry that removed it: a `to` without `from`; a `release` of data
   * the program sent (`to` when it was mapped): its changes are results
   * nobody asked for back; or a `from` of part of it (the expected bytes
   * follow every copy back, so only what it left behind differs).  A
   * `delete`, or a `release` of data mapped with alloc, throws the device
   * copy away on purpose, and so does an implicit `to` (defaultmap(to):
   * the program's stated choice for every variable of the category). */
  const struct cuse *by = NULL;
  const struct use_at *ix;
  int n = check_uses_in(r, b->tgt, b->tgt + b->size, &ix);
  for (int k = 0; k < (n < 0 ? r->nuses : n); k++) {
    const struct cuse *u = &r->uses[n < 0 ? k : ix[k].idx];
    if (u->tgt >= b->tgt && u->tgt < b->tgt + b->size && (!by || u > by))
      by = u; /* the last to come */
  }
  if (!by || (by->maptype & OMP_TGT_MAPTYPE_DELETE))
    return;
  int64_t type = by->maptype;
  int from = (type & OMP_TGT_MAPTYPE_FROM) != 0;
  int release = !(type & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM));
  if (!from && !release && (type & OMP_TGT_MAPTYPE_IMPLICIT))
    return;
  /* For the last two, the block must have been sent whole (mapped `to`):
   * only then are its expected bytes all known (a struct mapped alloc
   * with `to` members has expected bytes for the members alone). */
  if ((release || from) && !(b->maptype & OMP_TGT_MAPTYPE_TO))
    return;
  unsigned char *dev = device_bytes(b->dev, b->tgt, b->size);
  if (!dev)
    return;
  uintptr_t changed = differing(b->expect, dev, b->size, b, 0);
  /* Changes left inside the map(from) section: it copied nothing back (a
   * from copies only at the last reference, and another map of the same
   * storage in this construct held one). */
  uintptr_t boff = by->tgt - b->tgt;
  uintptr_t inside =
      changed && from && boff < b->size
          ? differing(b->expect + boff, dev + boff,
                      by->size < b->size - boff ? by->size : b->size - boff,
                      b, boff)
          : 0;
  free(dev);
  if (!changed)
    return;
  b->lost_reported = 1;
  char v[400], mt[64], k[400], how[400];
  if (from && inside)
    snprintf(how, sizeof how, "copied nothing back: its map(%s) of %lu "
             "bytes at offset %lu maps storage the construct maps again, and "
             "only the removal of the last reference copies back (OpenMP "
             "requires such maps to cover the same elements); one map with "
             "tofrom keeps them", check_maptype_words(type, 1, mt, sizeof mt),
             (unsigned long)by->size, (unsigned long)boff);
  else if (from)
    snprintf(how, sizeof how, "copied back only %lu bytes at offset %lu "
             "(map(%s)) before removing the mapping; the map(from:) section "
             "must cover all the results", (unsigned long)by->size,
             (unsigned long)boff,
             check_maptype_words(type, 1, mt, sizeof mt));
  else if (release)
    snprintf(how, sizeof how, "removed the mapping with map(release) "
             "without copying them back; map(from:) keeps them");
  else
    snprintf(how, sizeof how, "removed the mapping without copying them "
             "back; map(tofrom:) or map(from:) keeps them");
  check_finding("result thrown away: %s changed %lu of %lu bytes of %s, "
                "mapped with map(%s) at %s, and the %s at %s %s (device %d "
                "block " OMPEMU_PTR ")",
                kernel_words(b, k, sizeof k), (unsigned long)changed,
                (unsigned long)b->size, check_block_words(b, v, sizeof v),
                check_maptype_words(b->maptype, 0, mt, sizeof mt),
                b->mapped_at ? b->mapped_at : "unknown location",
                check_region_words(r->kind, r->nowait), r->where, how,
                (int)b->dev, OMPEMU_P(b->tgt));
}

void data_map_exists(struct cregion *r, struct cblock *b,
                     const struct obs_event *e) {
  if (!r || !b || !b->expect || !(e->maptype & OMP_TGT_MAPTYPE_TO) ||
      (e->maptype & OMP_TGT_MAPTYPE_ALWAYS) || b->lost_reported)
    return;
  uintptr_t off = e->tgt - b->tgt, n = (uintptr_t)e->size;
  if (off + n > b->size || !n)
    return;
  /* A scalar's device copy matters only to a kernel whose own construct
   * maps it (kernels get scalars by value otherwise), and that map is
   * looked at here too: a data construct's stale scalar is not reported
   * (`enter data map(to: n)` repeated in a loop, n never exited). */
  if (r->kind != OBS_R_TARGET && b->size <= MAX_SCALAR)
    return;
  /* The host changed since the device got its bytes ... */
  uintptr_t host_changed = differing((const unsigned char *)e->hst,
                                     b->expect + off, n, b, off);
  if (!host_changed)
    return;
  /* ... and the device did not: the device keeps data the host replaced. */
  unsigned char *dev = device_bytes(b->dev, e->tgt, n);
  if (!dev)
    return;
  uintptr_t dev_changed = differing(b->expect + off, dev, n, b, off);
  free(dev);
  if (dev_changed)
    return;
  /* OpenMP allows a kernel to use the device copy on purpose (the V&V
   * suite's enter data tests do): a line of the report, not a finding. */
  report_stale_kept(r, e->var ? e->var : b->var, e->hst, (uintptr_t)e->size);
}

void data_update_absent(struct cregion *r, const struct obs_event *e) {
  /* An entry that moves nothing (the base of a strided member section,
   * which clang passes with neither `to` nor `from`; a part of a flang
   * descriptor) is no update. */
  if (!(e->maptype & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)))
    return;
  /* Nor is an empty one (a zero-sized array, which enter data does not
   * map either): there is nothing to copy. */
  if (!e->size)
    return;
  /* One finding per variable: flang splits an allocatable into entries
   * for its descriptor and its data whose map names share file, line and
   * column (the declaration), not the name. */
  const char *f1 = e->var && e->var[0] == ';' ? strchr(e->var + 1, ';') : NULL;
  const char *f2 = f1 ? strchr(f1 + 1, ';') : NULL;
  if (r && f2) {
    /* the map name without its expression: file, line and column */
    uint64_t place = map_name_file_field(e->var) == 0
                         ? check_hash(e->var, (size_t)(f1 - e->var)) ^
                               check_hash(f2, strlen(f2))
                         : check_hash(f1, strlen(f1));
    if (place == r->absent_place)
      return;
    r->absent_place = place;
  }
  char v[400], mt[64];
  check_finding("target update %s of %s at %s: it is not mapped on device "
                "%d, so nothing was copied",
                check_maptype_words(e->maptype & (OMP_TGT_MAPTYPE_TO |
                                                  OMP_TGT_MAPTYPE_FROM),
                                    0, mt, sizeof mt),
                check_var_words(e->var, e->hst, (uintptr_t)e->size, v,
                                sizeof v),
                r ? r->where : "unknown location", (int)e->device);
}

/* The region's data end left USE mapped although it asked for `from`. */
static void extra_reference(struct cregion *r, const struct cuse *u) {
  struct cblock *b = cb_find(r->dev, u->tgt);
  if (!b || b->lost_reported || !u->size)
    return;
  unsigned char *dev = device_bytes(r->dev, u->tgt, u->size);
  if (!dev)
    return;
  uintptr_t differ = differing((const unsigned char *)u->hst, dev, u->size, b,
                               u->tgt - b->tgt);
  free(dev);
  if (!differ)
    return;
  /* Programs that count references on purpose copy the data back with
   * their last exit data: the finding waits for the mapping's end. */
  char v[400], mt[64], msg[960];
  snprintf(msg, sizeof msg,
                "results not copied back: map(%s) of %s at the %s at %s "
                "copied nothing because the mapping keeps %lu more "
                "reference%s (mapped at %s), and the device copy differs "
                "from the host in %lu of %lu bytes; an extra enter data or "
                "enclosing data region holds it, and no later copy brought "
                "them back (device %d block " OMPEMU_PTR
                ")", check_maptype_words(u->maptype, 1, mt, sizeof mt),
                check_var_words(check_named(u->var) || !b->var ? u->var
                                                               : b->var,
                                u->hst, u->size, v, sizeof v),
                check_region_words(r->kind, r->nowait), r->where,
                (unsigned long)u->refs, u->refs == 1 ? "" : "s",
                b->mapped_at ? b->mapped_at : "unknown location",
                (unsigned long)differ, (unsigned long)u->size, (int)b->dev,
                OMPEMU_P(b->tgt));
  if (!(b->pending_lost = strdup(msg)))
    return;
  b->lost_reported = 1;
  b->pending_hst = u->hst;
  b->pending_size = u->size;
}

void data_pending_copy_from(struct cblock *b, uintptr_t hst, uintptr_t size) {
  if (b->pending_uninit) { /* computed from garbage, now on the host */
    check_finding("%s", b->pending_uninit);
    free(b->pending_uninit);
    b->pending_uninit = NULL;
  }
  if (b->pending_lost && hst <= b->pending_hst &&
      hst + size >= b->pending_hst + b->pending_size) {
    free(b->pending_lost);
    b->pending_lost = NULL;
    b->lost_reported = 0;
  }
}

void data_pending_flush(struct cblock *b) {
  if (b->pending_lost) {
    check_finding("%s", b->pending_lost);
    free(b->pending_lost);
    b->pending_lost = NULL;
  }
}

void data_region_end(struct cregion *r) {
  if (r->kind != OBS_R_EXIT_DATA)
    return;
  for (int i = 0; i < r->nuses; i++)
    if (r->uses[i].decremented_from && r->uses[i].refs > 0 &&
        r->uses[i].refs != UINT64_MAX &&
        !check_use_copied_from(r, &r->uses[i]))
      extra_reference(r, &r->uses[i]);
}

/* A kernel argument V that points into a freed block. */
static void use_after_free(struct cregion *r, const struct obs_event *e,
                           int32_t k, uintptr_t v, const struct cblock *f) {
  char v1[400], v2[300];
  const char *name = NULL;
  if (e->maps && e->argpos)
    for (int32_t i = 0; i < e->maps->n; i++)
      if (e->argpos[i] == k && e->maps->names)
        name = (const char *)e->maps->names[i];
  if (f->kind == CB_API)
    check_finding("use after free: kernel %s at %s gets %s = " OMPEMU_PTR
                  ", which points into %lu bytes of device %d memory that "
                  "omp_target_free freed", e->kernel ? e->kernel : "?",
                  r->where, check_var_short(name, 0, 0, v2, sizeof v2),
                  OMPEMU_P(v), (unsigned long)f->size, (int)f->dev);
  else
    check_finding("use after exit data: kernel %s at %s gets %s = " OMPEMU_PTR
                  ", which points into the device copy of %s, removed by the "
                  "construct at %s (device %d block " OMPEMU_PTR ")",
                  e->kernel ? e->kernel : "?", r->where,
                  check_var_short(name, 0, 0, v2, sizeof v2), OMPEMU_P(v),
                  check_block_words(f, v1, sizeof v1),
                  f->freed_at ? f->freed_at : "unknown location", (int)f->dev,
                  OMPEMU_P(f->tgt));
}

/* Every entry of R's map list for B is an explicit map(alloc:) (none
 * moves data, none is implicit, and there is at least one): the program
 * said the kernel uses B's device copy as storage only. */
static int alloc_only(struct cregion *r, const struct cblock *b) {
  int n = 0;
  const struct use_at *ix;
  int m = check_uses_in(r, b->tgt, b->tgt + b->size, &ix);
  for (int k = 0; k < (m < 0 ? r->nuses : m); k++) {
    const struct cuse *u = &r->uses[m < 0 ? k : ix[k].idx];
    if (u->tgt < b->tgt || u->tgt >= b->tgt + b->size)
      continue;
    if (u->maptype & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM |
                      OMP_TGT_MAPTYPE_IMPLICIT))
      return 0;
    n++;
  }
  return n > 0;
}

/* Blocks up to this size are compared with their expected bytes when
 * another kernel is given them, to know which kernel changed them (a copy
 * and a compare per change of kernel: read-only inputs two kernels take
 * in turn pay it each time). */
#define WRITER_LOOK_MAX ((uintptr_t)64 << 10)

/* B goes to R's kernel: the last kernel it went to (another construct's)
 * changed it if its bytes differ from the expected ones now, and is then
 * the one a finding about the changes names. */
static void last_kernel(struct cregion *r, struct cblock *b) {
  /* Only data mapped `to` without `from` can have its changes thrown
   * away unsaid (data_before_free). */
  if (b->last_kernel && !b->writer && b->expect && b->size <= WRITER_LOOK_MAX &&
      (b->maptype & OMP_TGT_MAPTYPE_TO) &&
      !(b->maptype & OMP_TGT_MAPTYPE_FROM) &&
      (b->last_kernel != r->kernel || b->last_kernel_at != r->where)) {
    unsigned char *dev = device_bytes(b->dev, b->tgt, b->size);
    if (dev && differing(b->expect, dev, b->size, b, 0)) {
      b->writer = b->last_kernel;
      b->writer_at = b->last_kernel_at;
    }
    free(dev);
  }
  b->last_kernel = r->kernel;
  b->last_kernel_at = r->where;
}

/* The kernel of R reaches B: B is the last kernel's, and the kernel's
 * changes to it are results unless R maps it only with map(alloc:). */
static void reach(struct cregion *r, struct cblock *b) {
  last_kernel(r, b);
  b->chose_back = 0;
  if (!b->kernel_transfer && !alloc_only(r, b))
    b->kernel_transfer = 1;
}

/* Blocks a kernel reaches through pointers the runtime attached, from
 * the blocks it gets (the mapped pointee of a struct member mapped by an
 * enter data, which the kernel's own construct does not name): followed
 * this many levels, one pointer at a time. */
#define MAX_REACH 64

/* The kernel of R reaches B (found from a kernel argument or a use of R):
 * B, and into SEEN (N of them) if it has attached pointees. */
static void reach_from(struct cregion *r, struct cblock *b,
                       struct cblock **seen, int *n) {
  reach(r, b);
  if (b->edges && *n < MAX_REACH)
    seen[(*n)++] = b;
}

void data_kernel_begin(struct cregion *r, struct obs_event *e) {
  /* Each argument's and each use's block is looked up once: nothing here
   * adds or removes blocks, and what reach() sets no test below reads. */
  struct cblock *seen[MAX_REACH];
  int n = 0;
  for (int32_t k = 0; e->args && k < e->nargs; k++) {
    uintptr_t base = (uintptr_t)e->args[k];
    struct cblock *b = cb_find(e->device, base);
    if (b)
      reach_from(r, b, seen, &n);
    if (check_arg_narrow_literal(e, k))
      continue; /* its upper bytes are stack garbage */
    uintptr_t v = base + (e->offs ? (uintptr_t)e->offs[k] : 0);
    if (!b)
      b = cb_find(e->device, v);
    if (!b) {
      const struct cblock *f = base ? cb_find_freed(e->device, base) : NULL;
      if (f)
        use_after_free(r, e, k, base, f);
      continue;
    }
    last_kernel(r, b);
    b->chose_back = 0;
    if (b->kind != CB_MAPPED || b->initialized || b->uninit_reported ||
        (b->maptype & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)))
      continue;
    int64_t poisoned = check_dev_poisoned(b->dev, b->tgt, b->size);
    if (poisoned == 0)
      b->initialized = 1;
    if (poisoned != (int64_t)b->size || !b->size)
      continue;
    uintptr_t *u = realloc(r->uninit, (size_t)(r->nuninit + 1) * sizeof *u);
    if (u) {
      r->uninit = u;
      r->uninit[r->nuninit++] = b->tgt;
    }
  }
  /* Blocks the construct mapped but the kernel gets through a pointer. */
  for (int i = 0; i < r->nuses; i++) {
    struct cblock *b = cb_find(r->dev, r->uses[i].tgt);
    if (b)
      reach_from(r, b, seen, &n);
  }
  /* Blocks the kernel reaches through pointers the runtime attached. */
  for (int i = 0; i < n; i++)
    for (struct cedge *g = seen[i]->edges; g && n < MAX_REACH; g = g->next) {
      struct cblock *p = cb_find(seen[i]->dev, g->to);
      int known = !p;
      for (int j = 0; j < n && !known; j++)
        known = seen[j] == p;
      if (known)
        continue;
      reach(r, p);
      seen[n++] = p;
    }
}

void data_kernel_done(struct cregion *r) {
  for (int i = 0; i < r->nuninit; i++) {
    struct cblock *b = cb_find(r->dev, r->uninit[i]);
    if (!b || b->uninit_reported)
      continue;
    int64_t poisoned = check_dev_poisoned(b->dev, b->tgt, b->size);
    if (poisoned == 0)
      b->initialized = 1;
    if (poisoned != (int64_t)b->size)
      continue;
    b->uninit_reported = 1;
    char v[400];
    check_finding("uninitialized device memory read: kernel %s at %s got "
                  "%s, mapped with map(alloc:) at %s, which nothing had "
                  "written (no copy, no kernel), and did not write it "
                  "either: it can only have read uninitialized memory (or "
                  "does not use it) (device %d block " OMPEMU_PTR ")",
                  r->kernel ? r->kernel : "?", r->where,
                  check_block_words(b, v, sizeof v),
                  b->mapped_at ? b->mapped_at : "unknown location",
                  (int)b->dev, OMPEMU_P(b->tgt));
  }
  free(r->uninit);
  r->uninit = NULL;
  r->nuninit = 0;
}

/* Declare-target globals a kernel started with while their host copy had
 * changed since the device last got it.  The kernel is watched for reads
 * of the global's bytes (the plugin's exact watch: other globals share its
 * pages); a kernel that does not read them leaves no finding, and the
 * global stays stale for the next kernels.  One that reads them makes a
 * finding, which waits, because a kernel that writes the global (a loop
 * counter, a result) uses it as its own variable: reported when the host
 * and the device exchange the global again (`target update`) or at exit,
 * unless a kernel wrote it first.  Without a watch (a plugin without one,
 * another thread's kernel watched) the kernel counts as reading it.
 * Under check_lock; never freed (a few per run). */
struct stale_global {
  int32_t dev;
  uintptr_t tgt, size;
  const char *var, *kernel, *where; /* interned */
  uintptr_t differ;
  uintptr_t lo, hi;  /* the bytes that differ lie in [tgt+lo, tgt+hi) */
  uint64_t dev_hash; /* device bytes when the kernel started */
  const struct cregion *watcher; /* its kernel is watched for a read */
  struct stale_global *next;
};
static struct stale_global *stale_globals; /* oldest first */

static struct stale_global **stale_find(int32_t dev, uintptr_t tgt) {
  struct stale_global **p = &stale_globals;
  while (*p && ((*p)->dev != dev || (*p)->tgt != tgt))
    p = &(*p)->next;
  return p;
}

static void stale_report(struct stale_global *s) {
  char nm[256];
  check_source_name(s->var, nm, sizeof nm);
  check_finding("stale declare target variable %s: its host copy changed "
                "since the device last got it (%lu of %lu bytes differ) and "
                "kernel %s at %s starts with the old device copy; `target "
                "update to(%s)` sends it (device %d address " OMPEMU_PTR ")",
                nm, (unsigned long)s->differ,
                (unsigned long)s->size, s->kernel ? s->kernel : "?",
                s->where ? s->where : "unknown location",
                nm, (int)s->dev, OMPEMU_P(s->tgt));
}

/* End the watch of S's kernel: 1 if the kernel read the global's bytes
 * before writing them (or the plugin cannot say), 0 if not. */
static int stale_unwatch(struct stale_global *s) {
  int64_t off = -1;
  s->watcher = NULL;
  if (check_dev_watch(s->dev, s->tgt + s->lo, s->hi - s->lo, 0, &off) != 0)
    return 1;
  return off >= 0;
}

/* Unlink and free *P, reporting it first when REPORT. */
static void stale_drop(struct stale_global **p, int report) {
  struct stale_global *s = *p;
  if (report)
    stale_report(s);
  *p = s->next;
  free(s);
}

static int same_but_addresses(const unsigned char *hst,
                              const unsigned char *dev, uintptr_t n);

void data_global_synced(struct cblock *g, uintptr_t tgt, uintptr_t size) {
  struct stale_global **p = stale_find(g->dev, g->tgt);
  if (*p)
    stale_drop(p, !(*p)->watcher || stale_unwatch(*p));
  if (!g->hst || !g->size)
    return;
  g->sync_hash = check_hash((const void *)g->hst, g->size);
  g->sync_known = 1;
  g->stale_reported = 0;
  if (tgt == g->tgt && size >= g->size)
    return;
  /* Part of it moved (`target update to(coef[0:2])`): the device holds
   * what it holds now, which is stale where the host differs. */
  unsigned char *d = device_bytes(g->dev, g->tgt, g->size);
  if (d && memcmp((const void *)g->hst, d, g->size) &&
      !same_but_addresses((const unsigned char *)g->hst, d, g->size))
    g->sync_hash = check_hash(d, g->size);
  free(d);
}

void data_globals_kernel_done(const struct cregion *r) {
  int32_t dev = r->dev;
  struct stale_global **p = &stale_globals;
  while (*p) {
    struct stale_global *s = *p;
    if (s->watcher == r && !stale_unwatch(s)) {
      /* Not read: no finding; the next kernels look again. */
      struct cblock *g = cb_find(s->dev, s->tgt);
      if (g)
        g->stale_reported = 0;
      stale_drop(p, 0);
      continue;
    }
    unsigned char *d = s->dev == dev && !s->watcher && cb_find(dev, s->tgt)
                           ? device_bytes(dev, s->tgt, s->size)
                           : NULL;
    int written = d && check_hash(d, s->size) != s->dev_hash;
    free(d);
    if (written) {
      struct cblock *g = cb_find(dev, s->tgt);
      if (g)
        g->stale_reported = 0;
      stale_drop(p, 0);
    } else {
      p = &s->next;
    }
  }
}

static int flush_block(struct cblock *b, void *arg) {
  (void)arg;
  data_pending_flush(b);
  return 0;
}

void data_globals_flush(void) {
  while (stale_globals)
    stale_drop(&stale_globals,
               !stale_globals->watcher || stale_unwatch(stale_globals));
  cb_foreach(flush_block, NULL); /* mappings still there at exit */
}

/* 1 if the host's and the device's copy of a global (N bytes each) differ
 * only in words that hold addresses on both sides: a host address inside a
 * loaded object (a function, another global) where the device has any
 * address of its own (the image's relocations put the device's there).
 * Such a global, a function pointer or a pointer table, starts in sync. */
static int same_but_addresses(const unsigned char *hst,
                              const unsigned char *dev, uintptr_t n) {
  for (uintptr_t k = 0; k < n; k += 8) {
    uintptr_t len = n - k < 8 ? n - k : 8;
    if (!memcmp(hst + k, dev + k, len))
      continue;
    uint64_t hv, dv;
    Dl_info info;
    if (len < 8)
      return 0;
    memcpy(&hv, hst + k, 8);
    memcpy(&dv, dev + k, 8);
    if (!dv || !(pointer_word((uintptr_t)dv) ||
                 dladdr((void *)(uintptr_t)hv, &info)))
      return 0;
  }
  return 1;
}

/* Whether the host's copy of global G of DEV (hash H) is what another
 * device last exchanged with the host: a program giving each device its
 * own value through the host's copy (`target update to(x) device(d)` in
 * turn), whose devices keep their own values on purpose. */
static int given_to_another(int32_t dev, const struct cblock *g, uint64_t h) {
  for (int32_t d = 0; d < CHECK_MAX_DEVICES; d++) {
    if (d == dev)
      continue;
    for (struct cblock *o = cb_globals(d); o; o = o->next_global)
      if (o->hst == g->hst && o->size == g->size && o->sync_known &&
          o->sync_hash == h)
        return 1;
  }
  return 0;
}

void data_globals_check(struct cregion *r, int32_t dev) {
  for (struct cblock *g = cb_globals(dev); g; g = g->next_global) {
    if (!g->hst || g->size <= 1 || g->stale_reported)
      continue; /* size 1: an indirect function's entry */
    uint64_t h = check_hash((const void *)g->hst, g->size);
    if (g->sync_known && h == g->sync_hash)
      continue;
    unsigned char *d = device_bytes(dev, g->tgt, g->size);
    if (!d)
      continue;
    uint64_t hd = check_hash(d, g->size);
    if (!g->sync_known) { /* the device still holds the image's value */
      g->sync_hash = hd;
      g->sync_known = 1;
      if (same_but_addresses((const unsigned char *)g->hst, d, g->size)) {
        g->sync_hash = h; /* the host's copy of that value */
        free(d);
        continue;
      }
    }
    if (hd == h) {
      g->sync_hash = h;
    } else if (hd == g->sync_hash && !*stale_find(dev, g->tgt) &&
               !given_to_another(dev, g, h)) {
      struct stale_global *s = calloc(1, sizeof *s);
      if (s) {
        const unsigned char *hb = (const unsigned char *)g->hst;
        uintptr_t lo = 0, hi = g->size;
        while (lo < hi && hb[lo] == d[lo])
          lo++;
        while (hi > lo && hb[hi - 1] == d[hi - 1])
          hi--;
        /* A fault gives an access's first byte: from the word the
         * differing bytes start in (a vector load from further below is
         * missed, never invented). */
        lo &= ~(uintptr_t)7;
        g->stale_reported = 1; /* pending: one finding at most */
        *s = (struct stale_global){
            .dev = dev, .tgt = g->tgt, .size = g->size, .var = g->var,
            .kernel = r ? r->kernel : NULL, .where = r ? r->where : NULL,
            .differ = differing(hb, d, g->size, g, 0),
            .lo = lo, .hi = hi > lo ? hi : lo + 1, .dev_hash = hd};
        /* A finding only if the kernel reads the bytes that differ (a
         * struct's other fields, an array's other elements are fine). */
        if (r && check_dev_watch(dev, g->tgt + s->lo, s->hi - s->lo, 2,
                                 NULL) == 0)
          s->watcher = r;
        *stale_find(dev, g->tgt) = s;
      }
    }
    free(d);
  }
}

/* (construct, variable) pairs whose watch saw no read: the same
 * construct's next launches with that variable are not watched again (a
 * watch costs mprotect calls and a fault per page the kernel writes; a
 * loop of launches repeats what the first one did).  Interned pointers,
 * open addressing; when full, everything is watched. */
#define CLEAN_SLOTS 4096
static const void *clean_pairs[CLEAN_SLOTS][3];
static unsigned nclean;

/* The variable of B for check_clean_pair: its map name, else (compiled without
 * -g) its host address. */
static const char *clean_key(const struct cblock *b) {
  return b->var ? b->var : (const char *)b->hst;
}

int check_clean_pair(const char *where, const struct cblock *b, int kind,
                     int add) {
  const void *var = clean_key(b), *kd = (const void *)(uintptr_t)(kind + 1);
  uint64_t k[3] = {(uintptr_t)where, (uintptr_t)var, (uintptr_t)kd};
  unsigned j = (unsigned)(check_hash(k, sizeof k) % CLEAN_SLOTS);
  for (unsigned n = 0; n < CLEAN_SLOTS; n++, j = (j + 1) % CLEAN_SLOTS) {
    if (clean_pairs[j][0] == where && clean_pairs[j][1] == var &&
        clean_pairs[j][2] == kd)
      return 1;
    if (!clean_pairs[j][0]) {
      if (add && nclean < CLEAN_SLOTS / 2) {
        clean_pairs[j][0] = where;
        clean_pairs[j][1] = var;
        clean_pairs[j][2] = kd;
        nclean++;
      }
      return 0;
    }
  }
  return 0;
}

/* B (mapped, never written by a copy or a kernel, created without `to`)
 * is one to watch for reads: all of it still holds the poison. */
static int watchable(const struct cregion *r, struct cblock *b) {
  if (!b || b->kind != CB_MAPPED || b->initialized || b->partly_written ||
      b->uninit_reported || (b->maptype & OMP_TGT_MAPTYPE_TO) || !b->size)
    return 0;
  if (check_clean_pair(r->where, b, CLEAN_UNWRITTEN, 0))
    return 0;
  int64_t poisoned = check_dev_poisoned(b->dev, b->tgt, b->size);
  if (poisoned >= 0 && poisoned < (int64_t)b->size)
    b->partly_written = 1; /* never all poison again: no more scans */
  return poisoned == (int64_t)b->size;
}

static void watch_block(struct cregion *r, struct cblock *b) {
  if (!b)
    return;
  for (int i = 0; i < r->nwatched; i++)
    if (r->watched[i] == b->tgt)
      return;
  if (!watchable(r, b))
    return;
  uintptr_t *w = realloc(r->watched, (size_t)(r->nwatched + 1) * sizeof *w);
  if (!w)
    return;
  r->watched = w;
  if (check_dev_watch(b->dev, b->tgt, b->size, 1, NULL) == 0)
    r->watched[r->nwatched++] = b->tgt;
}

void data_kernel_watch(struct cregion *r, struct obs_event *e) {
  for (int32_t k = 0; e->args && k < e->nargs; k++) {
    if (check_arg_narrow_literal(e, k))
      continue;
    struct cblock *b = cb_find(e->device, (uintptr_t)e->args[k]);
    if (b)
      watch_block(r, b);
  }
  for (int i = 0; i < r->nuses; i++)
    watch_block(r, cb_find(r->dev, r->uses[i].tgt));
}

void data_kernel_unwatch(struct cregion *r) {
  for (int i = 0; i < r->nwatched; i++) {
    int64_t off = -1;
    struct cblock *b = cb_find(r->dev, r->watched[i]);
    if (check_dev_watch(r->dev, r->watched[i], b ? b->size : 1, 0, &off) != 0 ||
        !b || b->uninit_reported)
      continue;
    if (off < 0) {
      check_clean_pair(r->where, b, CLEAN_UNWRITTEN, 1);
      continue;
    }
    /* A bitfield's storage unit: the compiler reads it to write a field
     * (a read that follows on the same page is missed, never invented). */
    struct var_dwarf vd = {.var = b->var};
    int bits = var_byte_kind(&vd, (uintptr_t)off) == DW_BYTE_BITFIELD;
    var_dwarf_done(&vd);
    if (bits)
      continue;
    int from = (b->maptype & OMP_TGT_MAPTYPE_FROM) != 0;
    /* Memory mapped alloc that the kernel read and then wrote all of
     * (`c[j] += ...`) is a finding only if its bytes reach the host later
     * (an exit data map(from:), an update from): programs also compute
     * into scratch they throw away on purpose (the V&V suite's target
     * data if tests). */
    int later = !from && check_dev_poisoned(b->dev, b->tgt, b->size) == 0;
    b->uninit_reported = 1;
    char v[400], mt[64], msg[960];
    /* The offset is not in the message: with teams and threads, which
     * read comes first depends on timing. */
    snprintf(msg, sizeof msg, "uninitialized device memory read: kernel %s at %s read "
                  "%s before anything wrote it; it was mapped with map(%s) "
                  "at %s, which %s (device %d block " OMPEMU_PTR ")",
                  r->kernel ? r->kernel : "?", r->where,
                  check_block_words(b, v, sizeof v),
                  check_maptype_words(b->maptype, 0, mt, sizeof mt),
                  b->mapped_at ? b->mapped_at : "unknown location",
                  from ? "gives the device uninitialized memory: map(tofrom:) "
                         "copies the host's values in"
                       : "gives the device uninitialized memory",
                  (int)b->dev, OMPEMU_P(b->tgt));
    if (!later)
      check_finding("%s", msg);
    else if (!b->pending_uninit)
      b->pending_uninit = strdup(msg);
  }
  free(r->watched);
  r->watched = NULL;
  r->nwatched = 0;
}
