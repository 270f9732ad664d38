/* The checking mode's observer (check.h, docs/check.md): set up from
 * OMPEMU_CHECK / OMPEMU_REPORT in the library's constructor, before any
 * other observer; each event under check_lock, handed to the files of the
 * concerns; work that must wait for a queued kernel or copy to complete
 * kept per thread until the queue wait that completes it; at exit the
 * report, the summary and the exit status (OMPEMU_CHECK_EXIT when
 * anything was found and the program would have exited with 0). */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"
#include "envvar.h"
#include "wordscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- work deferred to the queue wait ---- */

struct pending {
  enum obs_point point; /* COPY_TO, COPY_FROM */
  int32_t dev;
  uintptr_t hst, tgt, size;
  const char *var;
};
/* What the checker keeps per thread, in one struct: the events look up
 * its address once (a thread-local look-up) and pass it on. */
struct cthread {
  struct cregion *region; /* the construct this thread is in, or NULL */
  struct cregion *spare;  /* the thread's next construct record */
  struct {
    int kernel; /* a kernel of the current construct was left queued */
    unsigned long kernels; /* how many (of any construct) */
    struct pending *v;
    int n, cap;
  } deferred;
  int armed; /* thread_gone will run at the thread's end */
};
static __thread struct cthread th;

/* The smallest copy whose bytes check_pass reads in one pass for several
 * uses (below, its set-up costs more than a second pass saves). */
#define PASS_MIN 512

/* What a thread keeps between events goes when the thread ends. */
static pthread_key_t thread_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void thread_gone(void *arg) {
  struct cthread *t = arg;
  free(t->deferred.v);
  t->deferred.v = NULL;
  t->deferred.n = t->deferred.cap = 0;
  if (t->spare) {
    free(t->spare->uses);
    check_region_uses_free(t->spare);
    free(t->spare);
    t->spare = NULL;
  }
}

static void make_key(void) { pthread_key_create(&thread_key, thread_gone); }

/* This thread now keeps something: have it freed at the thread's end. */
static void keeps(struct cthread *t) {
  if (t->armed)
    return;
  t->armed = 1;
  pthread_once(&key_once, make_key);
  pthread_setspecific(thread_key, t);
}

static void defer(struct cthread *t, const struct obs_event *e) {
  keeps(t);
  if (t->deferred.n == t->deferred.cap) {
    int nc = t->deferred.cap ? t->deferred.cap * 2 : 8;
    struct pending *v = realloc(t->deferred.v, (size_t)nc * sizeof *v);
    if (!v)
      return;
    t->deferred.v = v;
    t->deferred.cap = nc;
  }
  t->deferred.v[t->deferred.n++] =
      (struct pending){e->point, e->device, e->hst, e->tgt, (uintptr_t)e->size,
                       e->var};
  if (e->point == OBS_COPY_TO)
    check_unsettled++;
}

/* ---- the events ---- */

/* The line of a place check_where names: "t.c:12" or "line 12 of f". */
static int where_line(const char *w) {
  const char *colon = strrchr(w, ':');
  return !strncmp(w, "line ", 5) ? atoi(w + 5)
         : colon                 ? atoi(colon + 1)
                                 : 0;
}

/* Answers remembered by the address asked about, a few of each (the
 * answer for an address never changes: source locations and kernel names
 * are the program's, and the names made of them are interned, kept until
 * exit), so a loop of a few constructs (an exit and an enter, one after
 * the other) parses and hashes nothing.  Caller holds check_lock. */
#define MEMO 8
struct memo {
  const void *key;
  const char *val;
  int line;
};

static inline struct memo *memo_of(struct memo *m, const void *key) {
  uintptr_t a = (uintptr_t)key;
  return &m[(a >> 4 ^ a >> 8) & (MEMO - 1)];
}

/* A source location's place (check_where) and its line. */
static const struct memo *place_of(const ident_t *loc) {
  static struct memo memo[MEMO], *last = memo;
  if (last->key == loc && last->val)
    return last;
  struct memo *m = memo_of(memo, loc);
  if (m->key != loc || !m->val) {
    m->val = check_where(loc);
    m->line = where_line(m->val);
    m->key = loc;
  }
  return last = m;
}

/* The same of a kernel's name (check_where_kernel; val NULL if none). */
static const struct memo *kernel_place(const char *kernel) {
  static struct memo memo[MEMO];
  struct memo *m = memo_of(memo, kernel);
  if (m->key != kernel) {
    m->val = check_where_kernel(kernel);
    m->line = m->val ? where_line(m->val) : 0;
    m->key = kernel;
  }
  return m;
}

/* check_intern of a kernel's or a variable's name (check_intern's own
 * look-up costs a thread-local look-up and a call). */
static struct memo intern_memo[2 * MEMO], *intern_last = intern_memo;

static __attribute__((noinline)) const char *intern_slot(const char *name) {
  uintptr_t a = (uintptr_t)name;
  struct memo *m = &intern_memo[(a >> 4 ^ a >> 8) & (2 * MEMO - 1)];
  if (m->key != name || !m->val) {
    m->val = check_intern(name);
    m->key = name;
  }
  return (intern_last = m)->val;
}

/* The name asked last answers inline (a construct asks for one name
 * several times). */
static inline const char *interned(const char *name) {
  if (intern_last->key == name && intern_last->val)
    return intern_last->val;
  return intern_slot(name);
}

static void region_begin(struct cthread *t, struct obs_event *e) {
  struct cregion *r = t->spare;
  t->spare = NULL;
  if (r) {
    struct cuse *uses = r->uses;
    int cap = r->capuses;
    struct crange *copies = r->copies;
    int capcopies = r->capcopies;
    check_zero(r, sizeof *r);
    r->uses = uses;
    r->capuses = cap;
    r->copies = copies; /* kept too: most constructs copy back */
    r->capcopies = capcopies;
  } else if (!(r = calloc(1, sizeof *r))) {
    return;
  }
  r->kind = e->rkind;
  r->nowait = e->nowait;
  r->dev = e->device;
  const struct memo *m = place_of(e->loc);
  if (!m->line && e->rkind == OBS_R_TARGET && e->kernel) {
    const struct memo *k = kernel_place(e->kernel);
    if (k->val)
      m = k;
  }
  r->where = m->val;
  r->line = m->line;
  t->region = r;
  if (check_cfg.check) {
    hostptr_region_begin();
    if (r->nowait) /* the race checker holds nowait regions only */
      race_region_begin(r);
  }
}

/* NOTE: the plugin is told of the device addresses the bytes carry
 * (check_dev_note) here; 0 when that was done when the copy was queued. */
static void copy_to(struct cthread *t, int32_t dev, uintptr_t hst,
                    uintptr_t tgt, uintptr_t size, const char *var,
                    int note) {
  struct cregion *r = t->region;
  struct cblock *b = cb_find_range(dev, tgt, size ? size : 1);
  /* The copy changes this block's device bytes alone (check_synced): the
   * detach of a pointer at the end of a construct no longer makes the
   * section copied back just before it read again at its free. */
  if (b)
    b->synced = 0;
  else
    check_dev_epoch++;
  if (!b) {
    if (note && check_cfg.check)
      check_dev_note(dev, tgt, (const void *)hst, size, 0);
    return;
  }
  if (check_cfg.check)
    race_data_copy(r, b, hst, tgt, size, OMP_TGT_MAPTYPE_TO);
  uintptr_t off = tgt - b->tgt;
  /* A copy of the block's own host range, or a pointer the runtime puts
   * into it (attached, or put back when its pointee goes). */
  int own = b->hst && hst >= b->hst && hst + size <= b->hst + b->size;
  int pointer = 0;
  if (size == sizeof(uintptr_t) && !own) {
    uintptr_t v = *(const uintptr_t *)hst;
    struct cblock *to = v ? cb_find(dev, v) : NULL;
    /* Or just before a block: a Fortran descriptor's base address for a
     * section with a lower bound. */
    if (v && !to)
      to = slack_block(dev, v);
    if (to && to != b) {
      cb_link(b, off, v);
      check_name_pointee(b, to);
    } else {
      cb_link(b, off, 0); /* detached, or overwritten */
    }
    pointer = to != NULL || (!v && cb_is_pointer(b, off));
  }
  unsigned char *x = NULL;
  if (check_cfg.check) {
    if (b->kind == CB_MAPPED && size && (own || pointer)) {
      x = cb_expect(b, off == 0 && size == b->size);
      if (pointer)
        cb_mark_pointer(b, off);
    }
    if (off == 0 && size == b->size)
      b->initialized = 1;
  }
  /* The expected bytes, the report's hash and the scan for host addresses
   * in one pass over the bytes (check_pass), when they are enough for it
   * to save more than its set-up costs. */
  uint64_t h = 0;
  size_t clean = 0;
  int hash = 0, passed = 0;
  int scan = check_cfg.check && !rt_usm();
  if (size >= PASS_MIN) {
    hash = check_cfg.report && report_hashes(b, size);
    passed = hash + !!x + scan >= 2;
    if (passed)
      h = check_pass(x ? x + off : NULL, (const void *)hst, size, HOSTPTR_LO,
                     HOSTPTR_SPAN, scan ? &clean : NULL);
    hash &= passed;
  } else if (size < HASH_SMALL) {
    /* A few words: one loop does all three, whichever are wanted. */
    hash = check_cfg.report && report_hashes(b, size);
    passed = hash || x || scan;
    if (passed)
      h = check_pass_small(x ? x + off : NULL, (const void *)hst, size,
                           HOSTPTR_LO, HOSTPTR_SPAN, scan ? &clean : NULL);
  }
  if (x && !passed)
    memcpy(x + off, (const void *)hst, size);
  /* Otherwise the leading words without an address found here serve the
   * two scans below (device addresses, host addresses). */
  if (scan && !passed && hst % sizeof(uint64_t) == 0)
    clean = ompemu_first_word_in((const void *)hst, size / sizeof(uint64_t),
                                 HOSTPTR_LO, HOSTPTR_SPAN) *
            sizeof(uint64_t);
  if (note && check_cfg.check)
    check_dev_note(dev, tgt, (const void *)hst, size, clean);
  if (check_cfg.check)
    hostptr_after_copy_to(b, tgt, hst, size, var,
                          r ? r->where : "omp_target_memcpy", clean);
  if (check_cfg.report)
    report_copy_to(r, b, hst, size, var, hash ? &h : NULL);
  if (b->kind == CB_GLOBAL && check_cfg.check)
    data_global_synced(b, tgt, size);
}

/* DEFERRED: seen at the queue's wait, after the copy (check_synced). */
static void copy_from(struct cthread *t, int32_t dev, uintptr_t hst,
                      uintptr_t tgt, uintptr_t size, const char *var,
                      int deferred) {
  struct cregion *r = t->region;
  struct cblock *b = cb_find_range(dev, tgt, size ? size : 1);
  if (b && check_cfg.check)
    race_data_copy(r, b, hst, tgt, size, OMP_TGT_MAPTYPE_FROM);
  check_region_copied(r, hst, size);
  if (!b)
    return;
  int own = b->hst && hst >= b->hst && hst + size <= b->hst + b->size;
  int hash = check_cfg.report && report_hashes(b, size), hashed = 0;
  uint64_t h = 0;
  /* The leading bytes with no alias of a host pointer, found by that pass
   * too: the look for aliases to put back starts after them. */
  size_t clean = 0;
  uintptr_t alo = 0, aspan = 0;
  int scan = check_cfg.check && hostptr_alias_range(&alo, &aspan);
  if (check_cfg.check) {
    data_pending_copy_from(b, hst, size);
    data_after_copy_from(r, b, tgt, hst, size, var);
    if (r && r->kind == OBS_R_UPDATE && b->kind == CB_MAPPED)
      b->chose_back = 1;
    if (b->kind == CB_MAPPED && size && own) {
      unsigned char *x = cb_expect(b, tgt == b->tgt && size == b->size);
      /* The expected bytes and the report's hash in one pass. */
      if (x && hash && size >= PASS_MIN) {
        h = check_pass(x + (tgt - b->tgt), (const void *)hst, size, alo,
                       aspan, scan ? &clean : NULL);
        hashed = 1;
      } else if (x && hash && size < HASH_SMALL) {
        h = check_pass_small(x + (tgt - b->tgt), (const void *)hst, size,
                             alo, aspan, scan ? &clean : NULL);
        hashed = 1;
      } else if (x) {
        memcpy(x + (tgt - b->tgt), (const void *)hst, size);
      }
      /* Changes up to now reached the host: the kernel that made them is
       * named by no later finding about lost changes. */
      if (x && tgt == b->tgt && size == b->size)
        b->writer = b->writer_at = NULL;
      /* The device bytes as the copy found them; only if nothing may have
       * written the device since the copy. */
      if (x && !deferred && !check_unsettled && tgt == b->tgt &&
          size == b->size)
        b->synced = check_dev_epoch;
    }
  }
  if (check_cfg.report)
    report_copy_from(r, b, hst, size, var, hashed ? &h : NULL);
  if (check_cfg.check) {
    hostptr_after_copy_from(hst + clean, size - clean);
    if (b->kind == CB_GLOBAL)
      data_global_synced(b, tgt, size);
  }
}

static void kernel_done(struct cregion *r) {
  if (!r || !check_cfg.check)
    return;
  slack_kernel_unwatch(r);
  data_kernel_unwatch(r);
  data_kernel_done(r);
  data_globals_kernel_done(r);
  race_kernel_done(r);
}

/* The queue completed: what waited for it, in order. */
static void run_deferred(struct cthread *t) {
  if (t->deferred.kernel) {
    t->deferred.kernel = 0;
    kernel_done(t->region);
  }
  check_unsettled -= t->deferred.kernels;
  t->deferred.kernels = 0;
  for (int i = 0; i < t->deferred.n; i++) {
    struct pending *p = &t->deferred.v[i];
    if (p->point == OBS_COPY_TO) {
      check_unsettled--;
      copy_to(t, p->dev, p->hst, p->tgt, p->size, p->var, 0);
    } else {
      copy_from(t, p->dev, p->hst, p->tgt, p->size, p->var, 1);
    }
  }
  t->deferred.n = 0;
}

static void region_end(struct cthread *t) {
  struct cregion *r = t->region;
  if (t->deferred.n || t->deferred.kernel || t->deferred.kernels)
    run_deferred(t); /* most constructs left nothing on a queue */
  t->region = NULL;
  if (!r)
    return;
  int in_batch = r->in_batch;
  if (check_cfg.check) {
    data_region_end(r);
    race_region_end(r); /* a member of a batch: freed with its batch */
  }
  if (!in_batch) {
    /* Most constructs have none of these: no call to free them. */
    for (int i = 0; i < r->nuses; i++)
      if (r->uses[i].before)
        free(r->uses[i].before);
    if (r->uninit)
      free(r->uninit);
    r->uninit = NULL;
    if (r->watched)
      free(r->watched);
    r->watched = NULL;
    r->nwatched = 0;
    if (r->slack)
      free(r->slack);
    r->slack = NULL;
    r->nslack = 0;
    if (r->uindex || r->by_tgt)
      check_region_uses_free(r);
    if (t->spare) {
      free(t->spare->uses);
      check_region_uses_free(t->spare);
      free(t->spare);
    }
    keeps(t);
    t->spare = r; /* the thread's next construct record */
  }
}

static void kernel_begin(struct cthread *t, struct obs_event *e) {
  struct cregion *r = t->region;
  if (!r)
    return;
  r->kernel = interned(e->kernel);
  check_kernel_place(e->entry, r->where);
  if (check_cfg.check) {
    hostptr_kernel_args(e, r->where);
    data_globals_check(r, e->device);
    data_kernel_begin(r, e);
    race_kernel_begin(r);
    data_kernel_watch(r, e);
    slack_kernel_watch(r, e); /* after it: skips the blocks it watches */
  }
  if (check_cfg.report)
    report_kernel(e);
}

static void on_alloc(struct cthread *t, const struct obs_event *e) {
  struct cregion *r = t->region;
  /* From the device's first block on, the checker's copies tell the
   * plugin of the device addresses they carry. */
  if (check_cfg.check)
    check_dev_notes(e->device);
  struct cblock *b =
      cb_add(e->device, e->tgt, (uintptr_t)e->size,
             !r ? CB_API : r->kind == OBS_R_TARGET ? CB_PRIVATE : CB_RAW);
  if (b) {
    b->hst = e->hst;
    b->var = interned(e->var);
  }
}

static void on_free(struct cthread *t, const struct obs_event *e,
                    enum obs_phase ph) {
  struct cregion *r = t->region;
  struct cblock *b = cb_find(e->device, e->tgt);
  if (!b || b->tgt != e->tgt)
    return;
  if (ph == OBS_PH_BEGIN) {
    b->freeing = t;
    if (check_cfg.check)
      data_before_free(r, b);
    return;
  }
  /* Between the two phases the plugin freed the block, and another host
   * thread may have been given the same address: its record is not
   * ours to remove. */
  if (b->freeing != t)
    return;
  b->freeing = NULL;
  if (e->result != 0)
    return;
  if (check_cfg.report) {
    report_block_gone(b);
    if (!r) /* a mapping goes outside constructs only at the exit work */
      report_block_left(b);
  }
  cb_free(b, r ? r->where : "omp_target_free");
}

/* clang names the device slot of a `declare target link` variable V
 * "V_decl_tgt_ref_ptr" (docs/abi-clang14.md). */
static int link_pointer(const char *name) {
  static const char suffix[] = "_decl_tgt_ref_ptr";
  size_t n = strlen(name), s = sizeof suffix - 1;
  return n > s && strcmp(name + n - s, suffix) == 0;
}

static void on_map(struct cthread *t, const struct obs_event *e) {
  struct cregion *r = t->region;
  if (e->decision == OBS_MAP_ABSENT) {
    if (check_cfg.check)
      data_update_absent(r, e);
    return;
  }
  /* A declare-target global entered at image load: map type 0 and its
   * symbol for a name (map names begin with ';'). */
  int global = !e->maptype && e->var && e->var[0] && e->var[0] != ';';
  if (e->decision == OBS_MAP_REFUSED ||
      (e->decision == OBS_MAP_NEW && !global && check_cfg.check)) {
    if (check_cfg.check && !heap_map_section(r, e) &&
        e->decision == OBS_MAP_REFUSED)
      extend_refused(r, e);
    if (e->decision == OBS_MAP_REFUSED)
      return;
  }
  if (e->decision == OBS_MAP_NEW && global && link_pointer(e->var))
    return; /* a `link` variable's reference pointer: not its data */
  if (e->decision == OBS_MAP_NEW && global) {
    struct cblock *g = cb_add(e->device, e->tgt, (uintptr_t)e->size,
                              CB_GLOBAL);
    if (g) {
      g->hst = e->hst;
      g->var = interned(e->var);
    }
    return;
  }
  struct cblock *b = cb_find(e->device, e->tgt);
  const char *var = interned(e->var);
  if (e->decision == OBS_MAP_NEW && b && b->tgt == e->tgt) {
    b->kind = CB_MAPPED;
    b->maptype = e->maptype;
    b->hst = e->hst;
    b->var = var;
    b->mapped_at = r ? r->where : NULL;
  }
  if (e->decision != OBS_MAP_NEW && e->decision != OBS_MAP_EXISTS &&
      e->decision != OBS_MAP_DECREMENT)
    return;
  struct cuse *u = check_region_use(r, e->hst, (uintptr_t)e->size, e->tgt,
                                    var, e->maptype);
  if (u && e->decision == OBS_MAP_EXISTS)
    u->present = 1;
  if (u && !u->size)
    race_use_extent(r, u);
  if (e->decision == OBS_MAP_EXISTS && b && b->tgt == e->tgt) {
    check_name_adopt(b, e->var, (uintptr_t)e->size);
    /* A member entry covering the whole block this construct just made
     * for its struct (clang's `map(from: l->w[0:64])`: the struct's part,
     * alloc, then the member, from): the block is mapped as the member
     * says. */
    if ((e->maptype & OMP_TGT_MAPTYPE_MEMBER_OF) && r &&
        b->mapped_at == r->where && (uintptr_t)e->size >= b->size &&
        !(b->maptype & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)))
      b->maptype |= e->maptype & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM);
  }
  if (e->decision == OBS_MAP_EXISTS && check_cfg.check)
    data_map_exists(r, b, e);
  if (u && e->decision == OBS_MAP_DECREMENT &&
      (e->maptype & OMP_TGT_MAPTYPE_FROM) && !rt_usm()) {
    u->decremented_from = 1;
    u->refs = e->dyn_ref == UINT64_MAX || e->hold_ref == UINT64_MAX
                  ? UINT64_MAX
                  : e->dyn_ref + e->hold_ref;
  }
}

/* This observer's index in the events' slots (obs_register). */
static int slot = -1;

/* The thread's struct, from the event's slot once it is set there. */
static struct cthread *thread_of(struct obs_event *e) {
  struct cthread *t = slot >= 0 ? e->slots[slot] : NULL;
  if (__builtin_expect(!t, 0)) {
    t = &th;
    if (slot >= 0)
      e->slots[slot] = t;
  }
  return t;
}

/* The observer's functions, one per point and phase it reads (observer
 * below): each takes check_lock around its work, and none for the events
 * it does nothing with. */

static int on_region_begin(struct obs_event *e) {
  struct cthread *t = thread_of(e);
  check_lock_take();
  check_dev_epoch++;
  region_begin(t, e);
  check_lock_give();
  return 0;
}

static int on_region_end(struct obs_event *e) {
  struct cthread *t = thread_of(e);
  check_lock_take();
  region_end(t);
  check_lock_give();
  return 0;
}

static int on_alloc_end(struct obs_event *e) {
  if (e->result != 0 || !e->tgt)
    return 0;
  struct cthread *t = thread_of(e);
  check_lock_take();
  on_alloc(t, e);
  check_lock_give();
  return 0;
}

static int on_free_begin(struct obs_event *e) {
  struct cthread *t = thread_of(e);
  check_lock_take();
  on_free(t, e, OBS_PH_BEGIN);
  check_lock_give();
  return 0;
}

static int on_free_end(struct obs_event *e) {
  struct cthread *t = thread_of(e);
  check_lock_take();
  on_free(t, e, OBS_PH_END);
  check_lock_give();
  return 0;
}

/* A copy back that would read past a host heap block is refused. */
static int on_copy_from_begin(struct obs_event *e) {
  return check_cfg.check && heap_copy_back_past(e, thread_of(e)->region);
}

static int on_copy_end(struct obs_event *e) {
  if (e->result != 0)
    return 0;
  struct cthread *t = thread_of(e);
  check_lock_take();
  if (e->queued) {
    /* Its device addresses are noted now, before any later kernel (the
     * rest waits for the queue's wait). */
    if (e->point == OBS_COPY_TO && check_cfg.check)
      check_dev_note(e->device, e->tgt, (const void *)e->hst,
                     (size_t)e->size, 0);
    defer(t, e);
  } else if (e->point == OBS_COPY_TO) {
    copy_to(t, e->device, e->hst, e->tgt, (uintptr_t)e->size, e->var, 1);
  } else {
    copy_from(t, e->device, e->hst, e->tgt, (uintptr_t)e->size, e->var, 0);
  }
  check_lock_give();
  return 0;
}

static int on_kernel_begin(struct obs_event *e) {
  struct cthread *t = thread_of(e);
  check_lock_take();
  check_dev_epoch++;
  check_unsettled++;
  kernel_begin(t, e);
  check_lock_give();
  return 0;
}

static int on_kernel_end(struct obs_event *e) {
  struct cthread *t = thread_of(e);
  int ok = e->result == 0;
  check_lock_take();
  if (ok && e->queued) {
    t->deferred.kernel = 1;
    t->deferred.kernels++;
  } else {
    /* A queued kernel that failed may run yet: never settled. */
    if (!e->queued)
      check_unsettled--;
    if (ok)
      kernel_done(t->region);
  }
  check_lock_give();
  return 0;
}

/* The work it completes is this thread's (deferred). */
static int on_wait_end(struct obs_event *e) {
  struct cthread *t = thread_of(e);
  if (!t->deferred.n && !t->deferred.kernel)
    return 0;
  check_lock_take();
  run_deferred(t);
  check_lock_give();
  return 0;
}

/* The map decisions on_map looks at (observer.decisions). */
#define MAP_DECISIONS                                                         \
  (OBS_BIT(OBS_MAP_NEW) | OBS_BIT(OBS_MAP_EXISTS) |                           \
   OBS_BIT(OBS_MAP_DECREMENT) | OBS_BIT(OBS_MAP_ABSENT) |                     \
   OBS_BIT(OBS_MAP_REFUSED))

static int on_map_instant(struct obs_event *e) {
  /* Other observers may have asked for every decision. */
  if (!(MAP_DECISIONS & OBS_BIT(e->decision)))
    return 0;
  struct cthread *t = thread_of(e);
  check_lock_take();
  on_map(t, e);
  check_lock_give();
  return 0;
}

static const obs_fn handlers[OBS_NPOINTS][3] = {
    [OBS_REGION] = {on_region_begin, on_region_end, NULL},
    [OBS_ALLOC] = {NULL, on_alloc_end, NULL},
    [OBS_FREE] = {on_free_begin, on_free_end, NULL},
    [OBS_COPY_TO] = {NULL, on_copy_end, NULL},
    [OBS_COPY_FROM] = {on_copy_from_begin, on_copy_end, NULL},
    [OBS_KERNEL] = {on_kernel_begin, on_kernel_end, NULL},
    [OBS_WAIT] = {NULL, on_wait_end, NULL},
    [OBS_MAP] = {NULL, NULL, on_map_instant},
};

/* ---- the end ---- */

/* The summary line; STATUS is the exit status the process will have, or
 * -1 when it aborts (and keeps its own). */
static void summary(int status) {
  unsigned long repeats = 0, n = check_findings(&repeats);
  unsigned long errors = ompemu_error_count();
  unsigned long others = errors > n ? errors - n : 0;
  race_summary();
  char more[64] = "", also[96] = "", st[32] = "";
  if (status >= 0)
    snprintf(st, sizeof st, "; exit status %d", status);
  if (repeats)
    snprintf(more, sizeof more, " (and %lu repeat%s)", repeats,
             repeats == 1 ? "" : "s");
  if (others)
    snprintf(also, sizeof also, ", %lu other error%s reported", others,
             others == 1 ? "" : "s");
  if (!n && !others)
    ompemu_report(OMPEMU_NOTE, "ompemu: check: ", "no findings");
  else if (!n)
    ompemu_report(OMPEMU_NOTE, "ompemu: check: ", "no findings, but %lu "
                  "error%s reported%s", others, others == 1 ? "" : "s", st);
  else
    ompemu_report(OMPEMU_NOTE, "ompemu: check: ", "%lu finding%s%s%s%s", n,
                  n == 1 ? "" : "s", more, also, st);
}

/* At exit (obs_exit, before exit_status below) the report; on an abort
 * the summary too. */
static void finish(int fatal) {
  check_lock_take();
  if (check_cfg.check)
    data_globals_flush();
  if (check_cfg.report)
    report_print();
  check_lock_give();
  if (check_cfg.check && fatal)
    summary(-1);
}

/* The last exit handler of ours: the summary, and the exit status
 * OMPEMU_CHECK_EXIT when something was found and the program's is 0. */
static void exit_status(int status, void *arg) {
  (void)arg;
  int found = ompemu_error_count() > 0;
  summary(status == 0 && found ? check_cfg.exit_code : status);
  if (status == 0 && found) {
    fflush(NULL);
    _exit(check_cfg.exit_code);
  }
}

static const struct obs_observer observer = {
    .name = "check",
    .on = handlers,
    .decisions = MAP_DECISIONS,
    .finish = finish,
    .slot = &slot,
    .no_ids = 1,
};

/* OMPEMU_CHECK_ORDER: source | reverse | seed:N | off. */
static void read_order(void) {
  const char *s = getenv("OMPEMU_CHECK_ORDER");
  if (!s || !*s || strcmp(s, "source") == 0)
    return;
  if (strcmp(s, "reverse") == 0) {
    check_cfg.order = ORDER_REVERSE;
  } else if (strcmp(s, "off") == 0) {
    check_cfg.order = ORDER_OFF;
  } else if (strncmp(s, "seed:", 5) == 0 && s[5]) {
    char *end;
    unsigned long long v = strtoull(s + 5, &end, 0);
    if (*end)
      goto bad;
    check_cfg.order = ORDER_SEED;
    check_cfg.seed = v;
  } else {
    goto bad;
  }
  return;
bad:
  ompemu_error("ompemu", "OMPEMU_CHECK_ORDER=%s is not source, reverse, "
               "seed:N or off: source order is used", s);
}

void obs_check_setup(void) {
  long long v;
  ompemu_env_bool("OMPEMU_CHECK", 0, &check_cfg.check);
  ompemu_env_bool("OMPEMU_REPORT", 0, &check_cfg.report);
  if (!check_cfg.check && !check_cfg.report)
    return;
  check_lock_setup();
  if (check_cfg.check) {
    check_cfg.report = 1;
    ompemu_env_int("OMPEMU_CHECK_EXIT", 99, 1, 255, &v);
    check_cfg.exit_code = (int)v;
    ompemu_env_int("OMPEMU_CHECK_HOLD_MS", 50, 0, 10000, &v);
    check_cfg.hold_ms = (int)v;
    read_order();
    if (on_exit(exit_status, NULL) != 0)
      ompemu_warning("ompemu", "check: on_exit failed: the exit status "
                     "will not show findings");
  }
  obs_register(&observer);
}
