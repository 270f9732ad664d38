/* The arena's lookups (see arena.h): range checks of copies (with the
 * lazy poison they may owe), poisoned-byte counts, the blocks a kernel was
 * given, and the description of a faulting address for the fault
 * handler. */
#include "config.h"
#include "arena_internal.h"
#include "wordscan.h"
#include "trace.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *(*arena_kernel_namer)(const void *entry);
/* The runtime's ompemu_describe_kernel, when it has one (check mode fills
 * it): the place of the construct that launched a kernel.  Looked up here,
 * not in the fault handler, which may not call dlsym. */
static int (*describe_kernel)(const void *entry, char *buf, size_t len);

void arena_set_kernel_namer(const char *(*fn)(const void *entry)) {
  arena_kernel_namer = fn;
  describe_kernel = (int (*)(const void *, char *, size_t))dlsym(
      RTLD_DEFAULT, "ompemu_describe_kernel");
}

/* "NAME at FILE:LINE" of kernel ENTRY (the place when the runtime knows
 * it), or "at 0x... launched at FILE:LINE" without a name. */
static void kernel_named(const void *entry, char *buf, size_t len) {
  const char *name = arena_kernel_namer ? arena_kernel_namer(entry) : NULL;
  char at[300];
  if (!describe_kernel || describe_kernel(entry, at, sizeof at) || !at[0])
    at[0] = '\0';
  if (name)
    snprintf(buf, len, "%s%s%s", name, at[0] ? " at " : "", at);
  else
    snprintf(buf, len, "at " OMPEMU_PTR "%s%s", OMPEMU_P(entry),
             at[0] ? " launched at " : "", at);
}

void arena_kernel_words(const void *entry, char *buf, size_t len) {
  char k[400];
  if (!entry) {
    snprintf(buf, len, "device code");
    return;
  }
  kernel_named(entry, k, sizeof k);
  snprintf(buf, len, "kernel %s", k);
}

/* ---------------------------------------------------------- canaries */

/* 1 if the byte at X holds the poison. */
static int is_poison(const struct emu_arena *a, uintptr_t x) {
  return poison_first_diff(a->poison, (const void *)x, 1) == 1;
}

/* Check mode: report if the slack before or after live block N was
 * overwritten, and poison it again.  Caller holds the lock; N's poison is
 * not owed.  Returns 1 if it was intact. */
int arena_check_slack(struct emu_arena *a, struct anode *n,
                      const char *when) {
  if (!arena_is_check(a) || (n->flags & ANODE_PENDING))
    return 0;
  /* Only device code can write outside a block (copies are checked): with
   * no kernel launched since the block was allocated, or since its slack
   * was last found intact (BORN is set then: the copy back and the free
   * at a construct's end look once), its slack holds the poison.  This
   * spares reading a cold page per block. */
  unsigned long now = atomic_load_explicit(&a->settles, memory_order_relaxed);
  if (n->born == now)
    return 1;
  n->born = now;
  uintptr_t s = anode_start(n), e = s + n->size;
  uintptr_t hi = n->key + arena_body_len(n);
  size_t after = hi - e; /* farthest overwritten byte after the end */
  while (after && is_poison(a, e + after - 1))
    after--;
  size_t head = s - n->key;
  size_t before = head - poison_first_diff(a->poison, (void *)n->key, head);
  if (!after && !before)
    return 1;
  char kern[400] = "", var[600] = "", desc[512];
  if (n->last_kernel && arena_kernel_namer &&
      arena_kernel_namer(n->last_kernel)) {
    char k[340];
    kernel_named(n->last_kernel, k, sizeof k);
    snprintf(kern, sizeof kern, " (the last kernel given the block: %s)", k);
  }
  /* The runtime names the block's variable (as in fault.c); it only tries
   * its locks, so calling it with ours held cannot deadlock. */
  int (*describe)(const void *, char *, size_t) =
      (int (*)(const void *, char *, size_t))dlsym(
          RTLD_DEFAULT, "ompemu_describe_device_addr");
  if (describe && describe((const void *)s, desc, sizeof desc) == 0 &&
      strcmp(desc, "no mapping") != 0)
    snprintf(var, sizeof var, " (%s)", desc);
  if (after)
    ompemu_error("emu", "device %d: check: device memory past the end of the "
                 "%s block [" OMPEMU_PTR ", " OMPEMU_PTR ") of %zu bytes was "
                 "written, up to %zu bytes past the end%s; found %s%s",
                 a->dev, a->what, OMPEMU_P(s), OMPEMU_P(e), n->size, after,
                 var, when, kern);
  if (before)
    ompemu_error("emu", "device %d: check: device memory before the start of "
                 "the %s block [" OMPEMU_PTR ", " OMPEMU_PTR ") of %zu bytes "
                 "was written, up to %zu bytes before it%s; found %s%s",
                 a->dev, a->what, OMPEMU_P(s), OMPEMU_P(e), n->size, before,
                 var, when, kern);
  /* Reported once: the slack holds the poison again, so the next look
   * (the checker's own read, the free) finds only new writes. */
  arena_fill(a, e, after, 1); /* the slack stays off limits to ASan */
  arena_fill(a, s - before, before, 1);
  return 0;
}


/* 1 if [P, P+SIZE) lies in N's block: only the bytes asked for count; a
 * copy into the alignment padding is an overflow on a real device too. */
static int in_block(const struct anode *n, uintptr_t p, size_t size) {
  if (!n)
    return 0;
  uintptr_t s = anode_start(n);
  return p >= s && p - s <= n->size && size <= s + n->size - p;
}

/* The live block that holds [P, P+SIZE), with the arena's lock taken;
 * NULL, with the lock not held, when P is outside the range or no one
 * block holds the range.  The prologue of the range checks below. */
static struct anode *lock_block(struct emu_arena *a, uintptr_t p,
                                size_t size) {
  if (p < a->base || p >= a->base + a->span)
    return NULL;
  biaslock_lock(&a->lock);
  struct anode *n = arena_extent_of(a, p);
  if (in_block(n, p, size))
    return n;
  biaslock_unlock(&a->lock);
  return NULL;
}

int arena_check(struct emu_arena *a, const void *ptr, size_t size) {
  if (arena_settled_unlocked(a, (uintptr_t)ptr, size))
    return 0;
  if (!lock_block(a, (uintptr_t)ptr, size))
    return -1;
  biaslock_unlock(&a->lock);
  return 0;
}

int arena_write_begin(struct emu_arena *a, const void *ptr, size_t size) {
  if (arena_settled_unlocked(a, (uintptr_t)ptr, size))
    return 0;
  struct anode *n = lock_block(a, (uintptr_t)ptr, size);
  if (!n)
    return -1;
  /* Size 0 writes nothing: the poison stays owed. */
  if ((n->flags & ANODE_PENDING) && size)
    arena_fill_block(a, n, (uintptr_t)ptr, size);
  biaslock_unlock(&a->lock);
  return 0;
}

int arena_read_begin(struct emu_arena *a, const void *ptr, size_t size) {
  if (arena_settled_unlocked(a, (uintptr_t)ptr, size))
    return 0;
  struct anode *n = lock_block(a, (uintptr_t)ptr, size);
  if (!n)
    return -1;
  if (n->flags & ANODE_PENDING)
    arena_fill_block(a, n, 0, 0);
  else
    arena_check_slack(a, n, "when it was read back");
  biaslock_unlock(&a->lock);
  return 0;
}

int arena_poisoned_bytes(struct emu_arena *a, const void *ptr, size_t size,
                         size_t *count) {
  struct anode *n = lock_block(a, (uintptr_t)ptr, size);
  if (!n)
    return -1;
  if (n->flags & ANODE_PENDING)
    arena_fill_block(a, n, 0, 0);
  *count = poison_count(a->poison, ptr, size);
  biaslock_unlock(&a->lock);
  return 0;
}

void arena_note_pointers(struct emu_arena *a, const void *src, size_t n,
                         uintptr_t tgt) {
  if (!arena_is_check(a) || n < sizeof(uint64_t))
    return;
  const unsigned char *c = src;
  size_t words = n / sizeof(uint64_t);
  uint64_t w;
  /* Most copies carry no device address: look without the lock first. */
  size_t i = ompemu_first_word_in(c, words, a->base, a->span);
  if (i == words)
    return;
  biaslock_lock(&a->lock);
  for (; (i += ompemu_first_word_in(c + i * sizeof w, words - i, a->base,
                                    a->span)) < words;
       i++) {
    memcpy(&w, c + i * sizeof w, sizeof w);
    struct anode *b = arena_extent_of(a, (uintptr_t)w);
    if (b)
      arena_held_note(a, b, tgt ? tgt + i * sizeof w : 0);
    else if (a->nunprot)
      arena_unprot_arg(a, (uintptr_t)w);
  }
  biaslock_unlock(&a->lock);
}

int arena_within(const struct emu_arena *a, uint64_t lo, uint64_t span) {
  return a->base >= lo && a->base - lo <= span &&
         a->span <= span - (a->base - lo);
}

void arena_note_kernel(struct emu_arena *a, const void *ptr,
                       const void *entry) {
  uintptr_t p = (uintptr_t)ptr;
  if (!arena_is_check(a) || p < a->base || p >= a->base + a->span)
    return;
  biaslock_lock(&a->lock);
  struct anode *n = arena_extent_of(a, p);
  if (n)
    n->last_kernel = entry;
  else if (a->nunprot) /* a freed block: make it fault */
    arena_unprot_arg(a, p);
  biaslock_unlock(&a->lock);
}

int arena_block_of(struct emu_arena *a, const void *ptr, void **start,
                   size_t *size) {
  uintptr_t p = (uintptr_t)ptr;
  biaslock_lock(&a->lock);
  struct anode *n = arena_extent_of(a, p);
  uintptr_t s = n ? anode_start(n) : 0;
  int rc = n && p >= s && p < s + n->size + (n->size == 0) ? 0 : -1;
  if (rc == 0) {
    if (start)
      *start = (void *)s;
    if (size)
      *size = n->size;
  }
  biaslock_unlock(&a->lock);
  return rc;
}

/* Where X lies relative to the block of N, into BUF. */
static void relative(char *buf, size_t len, const char *what, uintptr_t x,
                     const struct anode *n, const char *state) {
  uintptr_t s = anode_start(n), e = s + n->size;
  if (x >= s && x < e)
    snprintf(buf, len, "inside %s %s block [" OMPEMU_PTR ", " OMPEMU_PTR
             ") of %zu bytes, at offset %zu", state, what, OMPEMU_P(s),
             OMPEMU_P(e), n->size, (size_t)(x - s));
  else if (x == e)
    snprintf(buf, len, "just past the end of %s %s block [" OMPEMU_PTR ", "
             OMPEMU_PTR ") of %zu bytes", state, what, OMPEMU_P(s),
             OMPEMU_P(e), n->size);
  else if (x > e)
    snprintf(buf, len, "%zu bytes past the end of %s %s block [" OMPEMU_PTR
             ", " OMPEMU_PTR ") of %zu bytes", (size_t)(x - e), state, what,
             OMPEMU_P(s), OMPEMU_P(e), n->size);
  else
    snprintf(buf, len, "%zu bytes before the start of %s %s block ["
             OMPEMU_PTR ", " OMPEMU_PTR ") of %zu bytes", (size_t)(s - x),
             state, what, OMPEMU_P(s), OMPEMU_P(e), n->size);
}

int arena_describe(struct emu_arena *a, uintptr_t x, char *buf, size_t len) {
  if (x < a->base || x >= a->base + a->span)
    return -1;
  int locked = 0;
  for (int i = 0; i < 1000 && !locked; i++) {
    locked = biaslock_trylock(&a->lock) == 0;
    if (!locked)
      nanosleep(&(struct timespec){0, 1000000}, NULL);
  }
  struct anode *n = arena_extent_of(a, x);
  if (n && x >= anode_start(n) + n->size) {
    /* Past the end of N, in its guard: nearer the start of the block of
     * the next page (a section's base read from below its lower bound)? */
    struct anode *m = arena_extent_of(a, (x | (PAGE - 1)) + 1);
    if (m && anode_start(m) - x < x - (anode_start(n) + n->size))
      n = m;
  }
  struct anode *q = a->quar.head; /* a fault's description: a walk will do */
  while (q && !(x >= q->key && x < q->key + q->len))
    q = q->next;
  if (n) {
    relative(buf, len, a->what, x, n, "the live");
  } else if (q && x < q->key + q->len) {
    relative(buf, len, a->what, x, q, "the freed");
  } else {
    if (x >= a->hwm)
      snprintf(buf, len, "in never-allocated device memory of the %s range "
               "[" OMPEMU_PTR ", " OMPEMU_PTR ")", a->what,
               OMPEMU_P(a->base), OMPEMU_P(a->base + a->span));
    else
      snprintf(buf, len, "in unallocated device memory of the %s range ("
               "never allocated, or freed long ago)", a->what);
  }
  if (locked)
    biaslock_unlock(&a->lock);
  return 0;
}

uintptr_t arena_base(const struct emu_arena *a) { return a->base; }
size_t arena_capacity(const struct emu_arena *a) { return a->capacity; }
size_t arena_span(const struct emu_arena *a) { return a->span; }
int arena_dev(const struct emu_arena *a) { return a->dev; }

enum emu_poison_kind arena_poison_kind(const struct emu_arena *a) {
  return a->poison;
}

size_t arena_in_use(const struct emu_arena *a) {
  struct emu_arena *m = (struct emu_arena *)a;
  biaslock_lock(&m->lock);
  size_t n = a->in_use;
  biaslock_unlock(&m->lock);
  return n;
}

int arena_owns(const struct emu_arena *a, const void *p) {
  uintptr_t x = (uintptr_t)p;
  return x >= a->base && x < a->base + a->span;
}
