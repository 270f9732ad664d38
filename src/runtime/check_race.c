/* Races between deferred target regions (docs/check.md, "Races between
 * nowait regions").  Two `target nowait` regions are concurrent when one
 * begins before the other has ended: libomp starts a region only once the
 * regions it depends on have completed, so regions in flight together
 * have no dependence between them.  Left alone they overlap only by
 * chance, so in check mode each nowait region is held at its start: the
 * first one opens a batch and waits OMPEMU_CHECK_HOLD_MS for others to
 * arrive, or less: the hold ends as soon as every thread that launched
 * tasks waits for them and every task launched has arrived or ended
 * (check_ompt.c), so a region nothing can race with costs nothing; then
 * the batch runs one region at a time, in an order that does
 * not depend on timing (source order, reverse, or a seeded shuffle of the
 * constructs' locations: OMPEMU_CHECK_ORDER), so the program's race plays
 * out the same way every run.  A region arriving while a batch runs joins
 * it (it is concurrent with the members that have not ended).
 *
 * While a batch holds two or more regions, each region's kernel is
 * measured: the device copies of the data it mapped before and after it
 * ran give the bytes it wrote.  Two concurrent regions race on a variable
 * both mapped when one wrote bytes of it and the other either wrote some
 * of the same bytes or wrote none of it (it reads what the other writes);
 * two that wrote disjoint parts are taken to share the work.  The nowait
 * data constructs (target update, enter and exit data) are members too:
 * they write the bytes they copy to the device and read those they copy
 * back (race_data_copy).  A zero-length section (a pointer into data
 * mapped before) is measured over its block (race_use_extent).  Data that
 * both regions map with alloc (kept on the device), and a scalar both
 * update that was there before them, are left out: ompemu cannot tell
 * concurrent atomic updates of them from a race. */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BATCH 64
/* A region waits at most this long for its turn, then runs anyway (a
 * member that never ends must not hang the program). */
#define TURN_LIMIT_S 30

static pthread_cond_t turn_cv;
static pthread_once_t cv_once = PTHREAD_ONCE_INIT;
/* The batch: members by slot (arrival order), and the order they run in. */
static struct {
  struct cregion *m[MAX_BATCH];
  int ord[MAX_BATCH]; /* slots, in running order */
  int n;
  int collecting;
  int running; /* index in ord of the member whose turn it is */
  uint64_t arrivals;
  unsigned long opened, held_full; /* batches; those held the full time */
} batch;

static void cv_init(void) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&turn_cv, &a);
  pthread_condattr_destroy(&a);
}

static struct timespec after_ms(int64_t ms) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (ms % 1000) * 1000000;
  if (ts.tv_nsec >= 1000000000) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000;
  }
  return ts;
}

static uint64_t order_key(const struct cregion *r) {
  uint64_t line = (uint64_t)(r->line > 0 ? r->line : 0) & 0xffffffu;
  uint64_t file = check_hash(r->where, strlen(r->where)) >> 40; /* 24 bits */
  switch (check_cfg.order) {
  case ORDER_REVERSE:
    return (0xffffffu - line) << 40 | (0xffffffu - file) << 16;
  case ORDER_SEED: {
    uint64_t s = check_cfg.seed ^ (file << 24 | line);
    return check_hash(&s, sizeof s) & ~(uint64_t)0xffff;
  }
  default:
    return line << 40 | file << 16;
  }
}

/* The running order from index FROM on: by key, then by arrival. */
static void sort_from(int from) {
  for (int i = from + 1; i < batch.n; i++)
    for (int j = i; j > from; j--) {
      struct cregion *a = batch.m[batch.ord[j - 1]], *b = batch.m[batch.ord[j]];
      if (a->order_key < b->order_key ||
          (a->order_key == b->order_key && a->arrival <= b->arrival))
        break;
      int t = batch.ord[j - 1];
      batch.ord[j - 1] = batch.ord[j];
      batch.ord[j] = t;
    }
}

static struct cregion *turn(void) {
  return batch.running < batch.n ? batch.m[batch.ord[batch.running]] : NULL;
}

/* Wait (releasing check_lock) until it is R's turn. */
static void wait_turn(struct cregion *r) {
  struct timespec limit = after_ms(TURN_LIMIT_S * 1000);
  if (turn() && turn() != r)
    check_lock_mutex();
  while (turn() && turn() != r)
    if (pthread_cond_timedwait(&turn_cv, &check_lock.mutex, &limit) == ETIMEDOUT) {
      ompemu_warning("ompemu", "check: the nowait region at %s waited %d s "
                     "for its turn and runs now, out of order", r->where,
                     TURN_LIMIT_S);
      return;
    }
}

/* Add R to the batch in the next slot. */
static void join(struct cregion *r) {
  r->member = (unsigned long)batch.n;
  batch.ord[batch.n] = batch.n;
  batch.m[batch.n++] = r;
}

void race_region_begin(struct cregion *r) {
  if (!check_cfg.check || check_cfg.order == ORDER_OFF || !r->nowait ||
      batch.n == MAX_BATCH)
    return;
  pthread_once(&cv_once, cv_init);
  /* Regions of one construct run in the order the program created their
   * tasks (a loop of nowait launches), not in the order they reached
   * ompemu, which the helper threads decide; without the tool, in that. */
  uint64_t created = check_ompt_arrived();
  r->order_key = order_key(r);
  r->arrival = created ? created : (UINT64_C(1) << 62) + ++batch.arrivals;
  r->in_batch = 1;
  if (batch.n == 0) {
    /* Open a batch and collect what arrives during the hold. */
    batch.collecting = 1;
    batch.running = 0;
    join(r);
    struct timespec until = after_ms(check_cfg.hold_ms);
    int full = check_ompt_hold(&until);
    batch.opened++;
    batch.held_full += (unsigned long)full;
    batch.collecting = 0;
    sort_from(0);
    int many = batch.n > 1;
    for (int i = 0; i < batch.n; i++) {
      batch.m[i]->tracked = many;
      batch.m[i]->concurrent = many ? ((uint64_t)1 << batch.n) - 1 : 0;
    }
    pthread_cond_broadcast(&turn_cv);
  } else if (batch.collecting) {
    join(r);
  } else {
    /* Late: concurrent with every member that has not ended. */
    join(r);
    for (int i = 0; i < batch.n - 1; i++)
      if (!batch.m[i]->done) {
        r->concurrent |= (uint64_t)1 << i;
        batch.m[i]->concurrent |= (uint64_t)1 << r->member;
      }
    sort_from(batch.running + 1);
    r->tracked = 1;
  }
  wait_turn(r);
}

void race_use_extent(const struct cregion *r, struct cuse *u) {
  const struct cblock *b = !u->size && u->tgt ? cb_find(r->dev, u->tgt) : NULL;
  if (b && b->kind == CB_MAPPED && b->hst && b->size) {
    u->rhst = b->hst;
    u->rsize = b->size;
    u->rtgt = b->tgt;
  }
}

/* Bytes of host [LO, HI) that region R's use U wrote (as a host range),
 * or 0 when it wrote none of it.  Untracked regions count everything
 * they map `from` as written. */
static int wrote(const struct cregion *r, const struct cuse *u, uintptr_t lo,
                 uintptr_t hi, uintptr_t *wlo, uintptr_t *whi) {
  uintptr_t a, b;
  if (r->tracked || r->kind != OBS_R_TARGET) {
    a = u->wlo;
    b = u->whi;
  } else if (u->maptype & OMP_TGT_MAPTYPE_FROM) {
    a = u->rhst;
    b = u->rhst + u->rsize;
  } else {
    return 0;
  }
  if (a < lo)
    a = lo;
  if (b > hi)
    b = hi;
  if (a >= b)
    return 0;
  *wlo = a;
  *whi = b;
  return 1;
}

/* "the target nowait region at t.c:9 (kernel K)", "the target update
 * nowait at t.c:11". */
static void construct_words(const struct cregion *r, char *buf, size_t len) {
  if (r->kind == OBS_R_TARGET)
    snprintf(buf, len, "the target nowait region at %s (kernel %s)", r->where,
             r->kernel ? r->kernel : "?");
  else
    snprintf(buf, len, "the %s nowait at %s",
             check_region_words(r->kind, 0), r->where);
}

/* The name U goes by: its map entry's, or, when that has none (flang's
 * implicit map of a module allocatable's data), its block's (the name of
 * the construct that mapped it). */
static const char *use_var(const struct cregion *r, const struct cuse *u) {
  if (check_named(u->var))
    return u->var;
  const struct cblock *b = cb_find(r->dev, u->tgt);
  return b && check_named(b->var) ? b->var : u->var;
}

static void report_pair(const struct cregion *a, const struct cregion *b,
                        const struct cuse *ua, int a_writes, int b_writes) {
  char v[400], order[300] = "";
  const char *var = use_var(a, ua);
  for (int i = 0; i < batch.n; i++) {
    size_t l = strlen(order);
    snprintf(order + l, sizeof order - l, "%s%s", i ? ", " : "",
             batch.m[batch.ord[i]]->where);
  }
  const char *who = a_writes && b_writes ? "both write it"
                    : a_writes ? "the first writes it and the second "
                                 "reads it"
                               : "the second writes it and the first "
                                 "reads it";
  if (a->kind == OBS_R_TARGET && b->kind == OBS_R_TARGET &&
      a->where == b->where && a->kernel == b->kernel) {
    /* Two regions of one construct: a loop of nowait launches. */
    check_finding("race between nowait target regions: two regions of the "
                  "construct at %s (kernel %s), launched one after the other "
                  "(a loop?), were in flight together with no dependence "
                  "between them, and each uses %s: %s; depend clauses or a "
                  "taskwait order them (ompemu ran the batch in the order "
                  "%s)", a->where, a->kernel ? a->kernel : "?",
                  check_var_words(var, ua->rhst, ua->rsize, v, sizeof v), who,
                  order);
    return;
  }
  if (a->kind == OBS_R_TARGET && b->kind == OBS_R_TARGET) {
    check_finding("race between nowait target regions: the one at %s (kernel "
                  "%s) and the one at %s (kernel %s) were in flight together "
                  "with no dependence between them, and %s uses %s: %s; "
                  "depend clauses or a taskwait order them (ompemu ran the "
                  "batch in the order %s)", a->where,
                  a->kernel ? a->kernel : "?", b->where,
                  b->kernel ? b->kernel : "?", "each",
                  check_var_words(var, ua->rhst, ua->rsize, v, sizeof v), who,
                  order);
    return;
  }
  char wa[400], wb[400];
  construct_words(a, wa, sizeof wa);
  construct_words(b, wb, sizeof wb);
  check_finding("race between nowait constructs: %s and %s were in flight "
                "together with no dependence between them, and each uses "
                "%s: %s; depend clauses or a taskwait order them (ompemu ran "
                "the batch in the order %s)", wa, wb,
                check_var_words(var, ua->rhst, ua->rsize, v, sizeof v), who,
                order);
}

/* A data construct's use U counts when it moved data: a map entry that
 * copied nothing (the data was already there) touches no device byte. */
static int data_moved(struct cregion *r, const struct cuse *u) {
  return r->kind == OBS_R_TARGET || u->whi > u->wlo ||
         check_use_copied_from(r, u);
}

void race_data_copy(struct cregion *r, const struct cblock *b, uintptr_t hst,
                    uintptr_t tgt, uintptr_t size, int64_t type) {
  if (!r || !r->in_batch || r->kind == OBS_R_TARGET || !size)
    return;
  struct cuse *u = check_region_use(r, hst, size, tgt, b->var, type);
  if (u)
  if (u && (type & OMP_TGT_MAPTYPE_TO)) {
    u->wlo = hst;
    u->whi = hst + size;
  }
}

/* Does the pair (A, B) race on a variable both use?  One finding each. */
/* A variable of at most this many bytes that two regions both update in
 * place on the device may be a counter updated atomically. */
#define ATOMIC_MAX 16

static void check_pair(struct cregion *a, struct cregion *b) {
  for (int i = 0; i < a->nuses; i++) {
    const struct cuse *ua = &a->uses[i];
    for (int j = 0; j < b->nuses; j++) {
      const struct cuse *ub = &b->uses[j];
      uintptr_t lo = ua->rhst > ub->rhst ? ua->rhst : ub->rhst;
      uintptr_t hi = ua->rhst + ua->rsize < ub->rhst + ub->rsize
                         ? ua->rhst + ua->rsize : ub->rhst + ub->rsize;
      /* Data only kept on the device (map(alloc:) in both) is left out:
       * concurrent atomic updates of a device counter look the same as a
       * race, and ompemu cannot see atomics in device code.  A pointer's
       * data (a zero-length section) is not: its kernels may do anything
       * with what it points to. */
      int pointers = (!ua->size && ua->rsize) || (!ub->size && ub->rsize);
      if (!ua->rsize || !ub->rsize || lo >= hi ||
          (!pointers && !((ua->maptype | ub->maptype) &
                          (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM))) ||
          !data_moved(a, ua) || !data_moved(b, ub))
        continue;
      uintptr_t alo = 0, ahi = 0, blo = 0, bhi = 0;
      int aw = wrote(a, ua, lo, hi, &alo, &ahi);
      int bw = wrote(b, ub, lo, hi, &blo, &bhi);
      int overlap = aw && bw && alo < bhi && blo < ahi;
      /* Both update a scalar kept on the device (mapped before, nothing
       * copied in): a counter the kernels may update atomically. */
      if (overlap && ua->present && ub->present && hi - lo <= ATOMIC_MAX)
        continue;
      if (overlap || (aw && !bw) || (bw && !aw)) {
        report_pair(a, b, ua, aw, bw);
        return;
      }
    }
  }
}

static void batch_done(void) {
  /* Pairs in running order, so the first named ran first. */
  for (int i = 0; i < batch.n; i++)
    for (int j = i + 1; j < batch.n; j++) {
      struct cregion *a = batch.m[batch.ord[i]], *b = batch.m[batch.ord[j]];
      if (a->concurrent & ((uint64_t)1 << b->member))
        check_pair(a, b);
    }
  for (int i = 0; i < batch.n; i++) {
    struct cregion *r = batch.m[i];
    for (int k = 0; k < r->nuses; k++)
      free(r->uses[k].before);
    free(r->uses);
    free(r->uninit);
    free(r->watched);
    check_region_uses_free(r);
    free(r);
  }
  batch.n = 0;
  batch.running = 0;
}

void race_region_end(struct cregion *r) {
  if (!r->in_batch)
    return;
  r->done = 1;
  while (turn() && turn()->done)
    batch.running++;
  if (!turn() && !batch.collecting)
    batch_done(); /* frees R too */
  pthread_cond_broadcast(&turn_cv);
}

void race_kernel_begin(struct cregion *r) {
  if (!r->tracked)
    return;
  for (int i = 0; i < r->nuses; i++) {
    struct cuse *u = &r->uses[i];
    if (!u->rsize || !u->rtgt || u->before)
      continue;
    u->before = malloc(u->rsize);
    if (u->before && check_dev_read(r->dev, u->before, u->rtgt, u->rsize)) {
      free(u->before);
      u->before = NULL;
    }
  }
}

void race_kernel_done(struct cregion *r) {
  if (!r->tracked)
    return;
  for (int i = 0; i < r->nuses; i++) {
    struct cuse *u = &r->uses[i];
    if (!u->before)
      continue;
    unsigned char *now = malloc(u->rsize);
    if (now && check_dev_read(r->dev, now, u->rtgt, u->rsize) == 0) {
      uintptr_t first = u->rsize, last = 0;
      for (uintptr_t k = 0; k < u->rsize; k++)
        if (now[k] != u->before[k]) {
          if (first == u->rsize)
            first = k;
          last = k;
        }
      if (first < u->rsize) {
        u->wlo = u->rhst + first;
        u->whi = u->rhst + last + 1;
      }
    }
    free(now);
    free(u->before);
    u->before = NULL;
  }
}

/* At exit, on trace level 1: how many batches waited the whole hold. */
void race_summary(void) {
  if (batch.opened)
    ompemu_trace(1, "ompemu", "check: nowait batches: %lu, held the full "
                 "OMPEMU_CHECK_HOLD_MS: %lu", batch.opened, batch.held_full);
}
