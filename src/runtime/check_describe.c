/* ompemu_describe_device_addr (exported under OMPEMU_PRIVATE): the emu
 * plugin's fault handler asks which variable a device address belongs to.
 * In check mode the checker's block table answers (variable, host range,
 * map type, the construct that mapped it; a block the address is just
 * past; a mapping that was removed); otherwise the mapping tables of the
 * devices do (variable and host range).  It runs in a signal handler on
 * the faulting thread: it only tries the locks, and says nothing rather
 * than wait. */
#define _GNU_SOURCE
#include "config.h"
#include "check.h"
#include "mapping.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* How far past a block's end an address is still named after it. */
#define NEAR 4096

/* The description is a phrase the plugin puts in parentheses after the
 * address ("(just past the end of variable a[0:n] (declared at t.c:16),
 * ...)"): "variable " before a mapped variable's name (map name VAR), not
 * before words that say what it is themselves (a declare-target variable,
 * a host range with no name: check_var_words). */
static const char *noun(const char *var) {
  return check_named(var) ? "variable " : "";
}

static int from_blocks(uintptr_t x, char *buf, size_t len) {
  char v[400], mt[64];
  struct cblock *b = cb_find_any(x);
  const char *rel = "";
  char how[96] = "";
  if (!b) {
    uintptr_t past = 0;
    for (uintptr_t d = 1; d <= NEAR && !b; d *= 2) {
      struct cblock *c = cb_find_any(x - d);
      if (c && x >= c->tgt + c->size) {
        b = c;
        past = x - (c->tgt + c->size);
        if (past)
          snprintf(how, sizeof how, "%lu bytes past the end of ",
                   (unsigned long)past);
        else
          snprintf(how, sizeof how, "just past the end of ");
        rel = how;
      }
    }
    /* A block starting just above, nearer than the end of one below: a
     * read from below a section's lower bound. */
    for (uintptr_t d = 1; d <= NEAR; d *= 2) {
      struct cblock *c = cb_find_any(x + d);
      if (c && c->tgt > x) {
        if (!b || c->tgt - x <= past) {
          b = c;
          snprintf(how, sizeof how, "%lu bytes before the start of ",
                   (unsigned long)(c->tgt - x));
          rel = how;
        }
        break;
      }
    }
  }
  if (!b) {
    struct cblock *f = cb_find_freed(-1, x);
    if (!f)
      return -1;
    check_block_words(f, v, sizeof v);
    snprintf(buf, len, "the device copy of %s%s, removed at %s",
             f->kind == CB_MAPPED ? noun(f->var) : "", v,
             f->freed_at ? f->freed_at : "unknown location");
    return 0;
  }
  check_block_words(b, v, sizeof v);
  if (b->kind == CB_MAPPED)
    snprintf(buf, len, "%s%s%s, host [" OMPEMU_PTR ", " OMPEMU_PTR "), map %s "
             "at %s", rel, noun(b->var), v, OMPEMU_P(b->hst),
             OMPEMU_P(b->hst + b->size),
             check_maptype_words(b->maptype, 0, mt, sizeof mt),
             b->mapped_at ? b->mapped_at : "unknown location");
  else
    snprintf(buf, len, "%s%s", rel, v);
  return 0;
}

struct search {
  uintptr_t x;
  const struct map_entry *hit;
};

static int contains(struct map_entry *e, void *arg) {
  struct search *s = arg;
  if (s->x >= e->tgt_begin && s->x < e->tgt_begin + (e->hst_end - e->hst_begin)) {
    s->hit = e;
    return 1;
  }
  return 0;
}

static int from_mappings(uintptr_t x, char *buf, size_t len) {
  for (int32_t i = 0; i < rt_num_devices(); i++) {
    struct rt_device *d = rt_device_get(i);
    if (!d || biaslock_trylock(&d->map_lock) != 0)
      continue;
    struct search s = {x, NULL};
    if (d->maps)
      map_foreach(d->maps, contains, &s);
    if (s.hit) {
      char v[400];
      check_var_words(s.hit->name, s.hit->hst_begin,
                      s.hit->hst_end - s.hit->hst_begin, v, sizeof v);
      snprintf(buf, len, "%s%s, host [" OMPEMU_PTR ", " OMPEMU_PTR ")",
               noun(s.hit->name), v, OMPEMU_P(s.hit->hst_begin),
               OMPEMU_P(s.hit->hst_end));
    }
    biaslock_unlock(&d->map_lock);
    if (s.hit)
      return 0;
  }
  return -1;
}

RT_EXPORT int ompemu_describe_device_addr(const void *addr, char *buf,
                                          size_t len) {
  if (!buf || !len)
    return -1;
  buf[0] = '\0';
  int rc = -1;
  if (check_cfg.check) {
    /* Another thread may be in the middle of an event: a little patience. */
    for (int tries = 0; tries < 200; tries++) {
      if (check_lock_try() == 0) {
        rc = from_blocks((uintptr_t)addr, buf, len);
        check_lock_give();
        break;
      }
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
  } else {
    rc = from_mappings((uintptr_t)addr, buf, len);
  }
  if (rc != 0)
    snprintf(buf, len, "no mapping");
  return 0;
}
