/* The blocks omp_target_alloc (and llvm_omp_target_alloc_*) returned, in
 * every mode, so that the device memory routines can say what is wrong in
 * the words of the API (docs/check.md, "At the API (every mode)"):
 * omp_target_free of a block already freed, or of another device's
 * memory; omp_target_memcpy given memory of one device with the number of
 * another (or the host's); omp_target_associate_ptr of a range that runs
 * past the end of the block.  Each message names the user's call, and the
 * calls that allocated and freed the block, by source line and argument
 * (callsite.c), from return addresses recorded here.
 * A hash table by address; freed blocks are remembered until FREED_KEPT
 * newer frees have happened.  Its own leaf lock. */
#define _GNU_SOURCE
#include "config.h"
#include "callsite.h"
#include "check_api.h"
#include "trace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FREED_KEPT 1024
#define TOMB ((uintptr_t)1)

struct apiblk {
  uintptr_t p;   /* 0 empty, TOMB deleted */
  size_t size;
  int32_t dev;
  int live;
  const char *alloc_api, *free_api;
  const void *alloc_ra, *free_ra; /* return addresses of those calls */
  const void *free_caller; /* the return address above free_ra's frame */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct apiblk *tab;
static size_t cap, used; /* used counts tombstones too */
static uintptr_t freed[FREED_KEPT];
static unsigned freed_head, nfreed;

static size_t slot_of(uintptr_t p, size_t c) {
  return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull >> 20) % c;
}

static struct apiblk *find(uintptr_t p) {
  if (!cap)
    return NULL;
  for (size_t j = slot_of(p, cap);; j = (j + 1) % cap) {
    if (tab[j].p == p)
      return &tab[j];
    if (!tab[j].p)
      return NULL;
  }
}

static int grow(void) {
  size_t nc = cap ? cap * 2 : 256;
  struct apiblk *t = calloc(nc, sizeof *t);
  if (!t)
    return -1;
  size_t n = 0;
  for (size_t i = 0; i < cap; i++)
    if (tab[i].p > TOMB) {
      size_t j = slot_of(tab[i].p, nc);
      while (t[j].p)
        j = (j + 1) % nc;
      t[j] = tab[i];
      n++;
    }
  free(tab);
  tab = t;
  __atomic_store_n(&cap, nc, __ATOMIC_RELAXED);
  used = n;
  return 0;
}

void check_api_alloc(int32_t dev, void *p, size_t size, const char *api,
                     const void *ra) {
  if (!p)
    return;
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  if (!b && (used + 1) * 2 > cap && grow() != 0) {
    pthread_mutex_unlock(&lock);
    return;
  }
  if (!b) {
    size_t j = slot_of((uintptr_t)p, cap);
    while (tab[j].p > TOMB)
      j = (j + 1) % cap;
    if (!tab[j].p)
      used++;
    b = &tab[j];
  }
  *b = (struct apiblk){(uintptr_t)p, size, dev, 1, api, NULL, ra, NULL, NULL};
  pthread_mutex_unlock(&lock);
}

/* "the host" or "device N" for device number DEV. */
static const char *dev_words(int32_t dev, int32_t host, char *buf,
                             size_t len) {
  if (dev == host)
    return "the host";
  snprintf(buf, len, "device %d", (int)dev);
  return buf;
}

/* The position of parameter WHICH ("ptr", "device", "dst", "src",
 * "dst_dev", "src_dev") in API's argument list. */
static int arg_index(const char *api, const char *which) {
  int rect = strstr(api, "_rect") != NULL;
  if (!strcmp(which, "ptr") || !strcmp(which, "dst"))
    return 0;
  if (!strcmp(which, "device") || !strcmp(which, "src"))
    return 1;
  if (!strcmp(which, "dst_dev"))
    return rect ? 9 : 5;
  return rect ? 10 : 6; /* src_dev */
}

void check_api_call(const char *api, const void *ra, int arg, char *buf,
                    size_t len) {
  struct callsite cs;
  callsite_resolve(ra, api, &cs);
  const char *a = arg >= 0 ? callsite_arg(&cs, arg) : NULL;
  snprintf(buf, len, "%s%s%s%s%s%s", api, a ? "(" : "", a ? a : "",
           a ? ")" : "", cs.where[0] ? " at " : "", cs.where);
}

/* ", allocated by omp_target_alloc at prog.c:9" for block B, or "". */
static void alloc_words(const struct apiblk *b, char *buf, size_t len) {
  char at[1100];
  callsite_where(b->alloc_ra, at, sizeof at);
  snprintf(buf, len, ", allocated by %s%s%s", b->alloc_api,
           at[0] ? " at " : "", at);
}

/* " (EXPR)" when argument I of the call is an expression other than a
 * number, else "". */
static void expr_words(const struct callsite *cs, int i, char *buf,
                       size_t len) {
  const char *a = callsite_arg(cs, i);
  buf[0] = 0;
  if (a && strspn(a, "0123456789") != strlen(a))
    snprintf(buf, len, " (%s)", a);
}

/* Both frees were made from the same line (a helper called twice): name
 * each one's caller after it, "prog.c:3 (called from prog.c:8)", when
 * both callers are known and differ. */
static void same_line_callers(char *call, size_t calllen, char *at,
                              size_t atlen, const void *ra,
                              const void *free_caller) {
  char c1[256], c2[256];
  const void *caller = callsite_caller(ra);
  if (!caller || !free_caller)
    return;
  callsite_where(caller, c1, sizeof c1);
  callsite_where(free_caller, c2, sizeof c2);
  if (!c1[0] || !c2[0] || !strcmp(c1, c2))
    return;
  size_t n = strlen(call), m = strlen(at);
  snprintf(call + n, calllen - n, " (called from %s)", c1);
  snprintf(at + m, atlen - m, " (called from %s)", c2);
}

int check_api_free(int32_t dev, int32_t host, void *p, const char *api,
                   const void *ra) {
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  struct apiblk copy = b ? *b : (struct apiblk){0};
  pthread_mutex_unlock(&lock);
  char w1[32], w2[32], call[1400], alloc[1400], ex[128];
  if (!b || (copy.live && copy.dev == dev))
    return 0; /* not ours to judge, or fine */
  check_api_call(api, ra, arg_index(api, "ptr"), call, sizeof call);
  alloc_words(&copy, alloc, sizeof alloc);
  if (!copy.live) {
    char at[1100], now[1100];
    callsite_where(copy.free_ra, at, sizeof at);
    callsite_where(ra, now, sizeof now);
    if (at[0] && !strcmp(at, now))
      same_line_callers(call, sizeof call, at, sizeof at, ra,
                        copy.free_caller);
    const char *fapi = copy.free_api ? copy.free_api : api;
    int same = !strcmp(fapi, api);
    char fw[1200];
    if (at[0])
      snprintf(fw, sizeof fw, "%s%s%sat %s", same ? "" : "by ",
               same ? "" : fapi, same ? "" : " ", at);
    else
      snprintf(fw, sizeof fw, "by %s%s", same ? "an earlier " : "", fapi);
    ompemu_error("ompemu", "%s: " OMPEMU_PTR " (%zu bytes of %s memory%s) "
                 "was already freed %s: nothing done", call, OMPEMU_P(p),
                 copy.size, dev_words(copy.dev, host, w1, sizeof w1), alloc,
                 fw);
    return -1;
  }
  struct callsite cs;
  callsite_resolve(ra, api, &cs);
  expr_words(&cs, arg_index(api, "device"), ex, sizeof ex);
  ompemu_error("ompemu", "%s: " OMPEMU_PTR " is %s memory (%zu bytes%s) but "
               "device_num%s is %s: nothing done", call, OMPEMU_P(p),
               dev_words(copy.dev, host, w1, sizeof w1), copy.size, alloc, ex,
               dev_words(dev, host, w2, sizeof w2));
  return -1;
}

void check_api_freed(void *p, const char *api, const void *ra) {
  if (!__atomic_load_n(&cap, __ATOMIC_RELAXED))
    return; /* omp_target_alloc was never called */
  const void *caller = callsite_caller(ra);
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  if (b && b->live) {
    b->live = 0;
    b->free_api = api;
    b->free_ra = ra;
    b->free_caller = caller;
    if (nfreed == FREED_KEPT) {
      struct apiblk *old = find(freed[freed_head]);
      if (old && !old->live)
        old->p = TOMB;
    } else {
      nfreed++;
    }
    freed[freed_head] = (uintptr_t)p;
    freed_head = (freed_head + 1) % FREED_KEPT;
  }
  pthread_mutex_unlock(&lock);
}

/* The words a message about side WHICH ("dst" or "src") of a copy by API
 * called from RA names: the call ("omp_target_memcpy at prog.c:19"), the
 * side's argument ("d = ", or empty) and its device number's expression
 * (" (host)", or empty). */
struct side_words {
  char call[1400], var[128], ex[128];
};

static void side_words(const char *api, const void *ra, const char *which,
                       struct side_words *w) {
  char devarg[16];
  struct callsite cs;
  callsite_resolve(ra, api, &cs);
  snprintf(w->call, sizeof w->call, "%s%s%s", api,
           cs.where[0] ? " at " : "", cs.where);
  const char *v = callsite_arg(&cs, arg_index(api, which));
  snprintf(w->var, sizeof w->var, "%s%s", v ? v : "", v ? " = " : "");
  snprintf(devarg, sizeof devarg, "%s_dev", which);
  expr_words(&cs, arg_index(api, devarg), w->ex, sizeof w->ex);
}

/* One side (WHICH is "dst" or "src") of a copy by API called from RA: P
 * with device number DEV.  0, or -1 after saying why it is refused. */
static int memcpy_side(const char *which, const void *p, int32_t dev,
                       int32_t host, const char *api, const void *ra) {
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  struct apiblk copy = b ? *b : (struct apiblk){0};
  pthread_mutex_unlock(&lock);
  if (!b || (copy.live && copy.dev == dev))
    return 0;
  char w1[32], w2[32], alloc[1400];
  struct side_words sw;
  side_words(api, ra, which, &sw);
  const char *call = sw.call, *var = sw.var, *ex = sw.ex;
  alloc_words(&copy, alloc, sizeof alloc);
  if (!copy.live) {
    char at[1100];
    callsite_where(copy.free_ra, at, sizeof at);
    ompemu_error("ompemu", "%s: %s %s" OMPEMU_PTR " is %s memory that %s "
                 "freed%s%s (%zu bytes%s): nothing copied", call, which, var,
                 OMPEMU_P(p), dev_words(copy.dev, host, w1, sizeof w1),
                 copy.free_api ? copy.free_api : "omp_target_free",
                 at[0] ? " at " : "", at, copy.size, alloc);
  } else {
    ompemu_error("ompemu", "%s: %s %s" OMPEMU_PTR " is %s memory (%zu "
                 "bytes%s) but %s_device_num%s is %s: nothing copied", call,
                 which, var, OMPEMU_P(p),
                 dev_words(copy.dev, host, w1, sizeof w1), copy.size, alloc,
                 which, ex, dev_words(dev, host, w2, sizeof w2));
  }
  return -1;
}

/* Refuse side WHICH of a copy by API: [BASE+OFF, BASE+OFF+LEN) with
 * device number DEV is not that device's memory (R 1) or runs past the
 * end of its block (R 2), as WHY says.  -1. */
static int refuse_side(const char *which, const void *base, size_t off,
                       size_t len, int rect, int r, const char *why,
                       int32_t dev, const char *api, const void *ra) {
  const char *p = (const char *)base + off;
  struct side_words sw;
  side_words(api, ra, which, &sw);
  /* "d = 0x...", or with the offset apart: "d + dst_offset 400 = 0x..." */
  char ptr[400], b[40];
  snprintf(b, sizeof b, OMPEMU_PTR, OMPEMU_P(base));
  int named = sw.var[0] != 0;
  if (!off)
    snprintf(ptr, sizeof ptr, "%s" OMPEMU_PTR, sw.var, OMPEMU_P(p));
  else if (rect)
    snprintf(ptr, sizeof ptr, "%.*s + %zu bytes (by %s_offsets and "
             "%s_dimensions) = " OMPEMU_PTR,
             named ? (int)strlen(sw.var) - 3 : (int)strlen(b),
             named ? sw.var : b, off, which, which, OMPEMU_P(p));
  else
    snprintf(ptr, sizeof ptr, "%.*s + %s_offset %zu = " OMPEMU_PTR,
             named ? (int)strlen(sw.var) - 3 : (int)strlen(b),
             named ? sw.var : b, which, off, OMPEMU_P(p));
  if (r == 2)
    ompemu_error("ompemu", "%s: %s %s: %s: nothing copied", sw.call, which,
                 ptr, why);
  else
    ompemu_error("ompemu", "%s: %s %s (%zu bytes) is not inside device %d "
                 "memory, yet %s_device_num%s is device %d: %s: nothing "
                 "copied", sw.call, which, ptr, len, (int)dev, which, sw.ex,
                 (int)dev, why);
  return -1;
}

/* The words of a copy that runs past the end of the block [BS, BS+BZ):
 * the emu plugin's (__tgt_rtl_ompemu_not_device), for host blocks too. */
static void past_end_words(const void *p, size_t len, const void *bs,
                           size_t bz, char *why, size_t whylen) {
  size_t at = (size_t)((const char *)p - (const char *)bs);
  size_t past = at + len - bz;
  snprintf(why, whylen, "the copy of %zu byte%s at offset %zu runs %zu "
           "byte%s past the end of the allocation [" OMPEMU_PTR ", "
           OMPEMU_PTR ") of %zu bytes", len, len == 1 ? "" : "s", at, past,
           past == 1 ? "" : "s", OMPEMU_P(bs),
           OMPEMU_P((uintptr_t)bs + bz), bz);
}

/* 1 if [P+OFF, P+OFF+LEN) starts in a live omp_target_alloc block of
 * device DEV that starts at P and runs past its end; the block in *COPY. */
static int runs_past(const void *p, size_t off, size_t len, int32_t dev,
                     struct apiblk *copy) {
  if (!__atomic_load_n(&cap, __ATOMIC_RELAXED))
    return 0; /* omp_target_alloc was never called */
  pthread_mutex_lock(&lock);
  struct apiblk *b = find((uintptr_t)p);
  *copy = b ? *b : (struct apiblk){0};
  pthread_mutex_unlock(&lock);
  return b && copy->live && copy->dev == dev &&
         (off > copy->size || len > copy->size - off);
}

int check_api_device_side(const char *which, const void *base, size_t off,
                          size_t len, int rect, struct rt_device *d,
                          int32_t dev, const char *api, const void *ra) {
  char why[300];
  const char *p = (const char *)base + off;
  int r = d->plugin->ompemu_not_device
              ? d->plugin->ompemu_not_device(d->local_id, p, (int64_t)len,
                                             why, sizeof why)
              : 0;
  if (r != 1 && r != 2)
    return 0;
  return refuse_side(which, base, off, len, rect, r, why, dev, api, ra);
}

int check_api_host_side(const char *which, const void *base, size_t off,
                        size_t len, int rect, int32_t host, const char *api,
                        const void *ra) {
  struct apiblk copy;
  if (!runs_past(base, off, len, host, &copy))
    return 0;
  char why[300];
  past_end_words((const char *)base + off, len, base, copy.size, why,
                 sizeof why);
  return refuse_side(which, base, off, len, rect, 2, why, host, api, ra);
}

int check_api_memcpy(const void *dst, const void *src, int32_t dst_dev,
                     int32_t src_dev, int32_t host, const char *api,
                     const void *ra) {
  if (!__atomic_load_n(&cap, __ATOMIC_RELAXED))
    return 0; /* omp_target_alloc was never called */
  if (memcpy_side("dst", dst, dst_dev, host, api, ra) ||
      memcpy_side("src", src, src_dev, host, api, ra))
    return -1;
  return 0;
}

int check_api_associate(const void *p, size_t off, size_t len, int32_t dev,
                        const char *api, const void *ra) {
  struct apiblk copy;
  if (!runs_past(p, off, len, dev, &copy))
    return 0;
  char call[1400], alloc[1400], var[128], ex[128];
  struct callsite cs;
  callsite_resolve(ra, api, &cs);
  snprintf(call, sizeof call, "%s%s%s", api, cs.where[0] ? " at " : "",
           cs.where);
  const char *v = callsite_arg(&cs, 1);
  snprintf(var, sizeof var, "%s%s", v ? v : "", v ? " = " : "");
  expr_words(&cs, 3, ex, sizeof ex);
  alloc_words(&copy, alloc, sizeof alloc);
  size_t past = off > copy.size ? off - copy.size + len
                                : len - (copy.size - off);
  ompemu_error("ompemu", "%s: device_ptr %s" OMPEMU_PTR " + device_offset "
               "%zu%s, %zu bytes, runs %zu byte%s past the end of its block ["
               OMPEMU_PTR ", " OMPEMU_PTR ") of %zu bytes (device %d memory%s):"
               " nothing associated", call, var, OMPEMU_P(p), off, ex, len,
               past, past == 1 ? "" : "s", OMPEMU_P(p),
               OMPEMU_P((uintptr_t)p + copy.size), copy.size, (int)dev, alloc);
  return -1;
}
