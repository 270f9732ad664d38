/* What every file of the checking mode shares (check.h): its
 * configuration and lock, findings and
 * their de-duplication, names of variables, map types and constructs in
 * words, interned strings that outlive the images they came from, a fast
 * hash (alone, or in one pass with a copy and a scan for addresses),
 * device memory reached through the plugin directly (so the checker's own
 * copies are not observed) and whether anything may have written it since
 * a block's bytes were known, and the uses of a construct
 * (check.c keeps the thread's current construct). */
#define _GNU_SOURCE
#include "config.h"
#include "callsite.h"
#include "check.h"
#include "locstr.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct check_config check_cfg = {.exit_code = 99,
                                 .order = ORDER_SOURCE,
                                 .hold_ms = 50};

/* ---- findings ---- */

#define SEEN_SLOTS 4096 /* distinct findings remembered for de-duplication */

static pthread_mutex_t finding_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seen[SEEN_SLOTS];
static unsigned long nfindings, nrepeats;

/* The de-duplication key of MSG: its hash with the device block's address
 * left out, so that one bug in a loop (the same class, variable, line and
 * kernel, a new block each iteration) is one finding and its repeats. */
static uint64_t finding_key(const char *msg) {
  static const char tag[] = " block 0x";
  char key[960];
  size_t n = 0;
  for (const char *p = msg; *p && n < sizeof key - 1;) {
    if (!strncmp(p, tag, sizeof tag - 1) && n + sizeof tag < sizeof key) {
      for (size_t i = 0; i < sizeof tag - 1; i++)
        key[n++] = *p++;
      while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
        p++;
      continue;
    }
    key[n++] = *p++;
  }
  return check_hash(key, n);
}

void check_finding(const char *fmt, ...) {
  char msg[960];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  uint64_t h = finding_key(msg);
  int repeat = 0;
  pthread_mutex_lock(&finding_lock);
  for (size_t i = h % SEEN_SLOTS, k = 0; k < SEEN_SLOTS;
       i = (i + 1) % SEEN_SLOTS, k++) {
    if (seen[i] == h) {
      repeat = 1;
      break;
    }
    if (!seen[i]) {
      seen[i] = h;
      break;
    }
  }
  if (repeat)
    nrepeats++;
  else
    nfindings++;
  pthread_mutex_unlock(&finding_lock);
  if (!repeat)
    ompemu_report(OMPEMU_ERROR, "ompemu: check: ", "%s", msg);
}

unsigned long check_findings(unsigned long *repeats) {
  pthread_mutex_lock(&finding_lock);
  unsigned long n = nfindings;
  if (repeats)
    *repeats = nrepeats;
  pthread_mutex_unlock(&finding_lock);
  return n;
}

/* ---- interned strings, by the address they came from ---- */

struct intern {
  const void *key;
  const char *copy;
};
static struct intern *itab;
static size_t ncap, nused;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

/* The copy stored for KEY, or the result of MAKE(KEY) stored now. */
static const char *intern_by(const void *key,
                             char *(*make)(const void *key)) {
  /* Entries are never removed: the thread's last few answers stay true. */
  static __thread struct recent {
    struct {
      const void *key;
      const char *copy;
    } e[4];
    unsigned next;
  } recent_tl; /* one struct: one thread-local look-up */
  if (!key)
    return NULL;
  struct recent *recent = &recent_tl;
  /* GCC would look the address up again after each call. */
  __asm__("" : "+r"(recent));
  for (int i = 0; i < 4; i++)
    if (recent->e[i].key == key)
      return recent->e[i].copy;
  pthread_mutex_lock(&intern_lock);
  const char *r = NULL;
  if (nused * 2 >= ncap) {
    size_t nc = ncap ? ncap * 2 : 256;
    struct intern *t = calloc(nc, sizeof *t);
    if (t) {
      for (size_t i = 0; i < ncap; i++)
        if (itab[i].key) {
          size_t j = ((uintptr_t)itab[i].key >> 3) % nc;
          while (t[j].key)
            j = (j + 1) % nc;
          t[j] = itab[i];
        }
      free(itab);
      itab = t;
      ncap = nc;
    }
  }
  if (ncap) {
    size_t j = ((uintptr_t)key >> 3) % ncap;
    while (itab[j].key && itab[j].key != key)
      j = (j + 1) % ncap;
    if (itab[j].key) {
      r = itab[j].copy;
    } else if (nused + 1 < ncap) {
      char *c = make(key);
      if (c) {
        itab[j].key = key;
        itab[j].copy = c;
        nused++;
        r = c;
      }
    }
  }
  pthread_mutex_unlock(&intern_lock);
  if (r) {
    recent->e[recent->next % 4].key = key;
    recent->e[recent->next % 4].copy = r;
    recent->next++;
  }
  return r;
}

static char *dup_string(const void *key) { return strdup(key); }

const char *check_intern(const char *s) { return intern_by(s, dup_string); }

/* check_named's last answers, by the name's address and checked against
 * a copy of it (another name at a reused address is looked at again): a
 * launch loop asks about the same few names several times a launch, and
 * parsing one costs some 400 instructions. */
#define NAMED_SLOTS 8
#define NAMED_LEN 160
static __thread struct {
  const char *p;
  int named;
  char s[NAMED_LEN];
} named_seen[NAMED_SLOTS];

int check_named(const char *var) {
  if (!var || var[0] != ';')
    return 0;
  size_t n = strnlen(var, NAMED_LEN);
  size_t k = ((uintptr_t)var >> 3) % NAMED_SLOTS;
  if (n < NAMED_LEN && named_seen[k].p == var &&
      memcmp(named_seen[k].s, var, n + 1) == 0)
    return named_seen[k].named;
  char expr[8];
  int r = map_name_expr(var, expr, sizeof expr) != NULL;
  if (n < NAMED_LEN) {
    named_seen[k].p = var;
    named_seen[k].named = r;
    memcpy(named_seen[k].s, var, n + 1);
  }
  return r;
}

/* The map name of the variable of which map name VAR names a member,
 * interned: clang's ";s.a;f.c;9;3;;" gives ";s;f.c;9;3;;" and
 * ";this->d;..." ";*this;..."; flang's ";f.f90;t%v;..." ";f.f90;t;...".
 * NULL when VAR's expression is no member access. */
static const char *parent_name(const char *var) {
  char expr[256], out[512];
  int field = 1 - map_name_file_field(var);
  if (!loc_field(var, field, expr, sizeof expr) ||
      strlen(expr) + 1 >= sizeof expr)
    return NULL;
  size_t cut = 0, skip = 0;
  int depth = 0;
  for (size_t i = 0; expr[i]; i++) {
    char c = expr[i];
    if (c == '[' || c == '(')
      depth++;
    else if ((c == ']' || c == ')') && depth > 0)
      depth--;
    else if (!depth && (c == '.' || c == '%'))
      cut = i, skip = 1;
    else if (!depth && c == '-' && expr[i + 1] == '>')
      cut = i, skip = 2;
  }
  if (!cut)
    return NULL;
  /* The fields before the expression, the parent, the fields after it. */
  const char *start = var + 1;
  for (int i = 0; i < field; i++)
    start = strchr(start, ';') + 1;
  const char *rest = strchr(start, ';');
  int n = snprintf(out, sizeof out, "%.*s%s%.*s%s", (int)(start - var), var,
                   skip == 2 ? "*" : "", (int)cut, expr, rest ? rest : "");
  return n > 0 && (size_t)n < sizeof out ? check_intern(out) : NULL;
}

void check_name_adopt(struct cblock *b, const char *var, uintptr_t size) {
  if (!b || b->kind != CB_MAPPED || check_named(b->var) || !check_named(var))
    return;
  /* A member's entry at the start of its struct's unnamed block (clang's
   * implicit `this`): the block is the struct, not the member. */
  const char *parent = size < b->size ? parent_name(var) : NULL;
  b->var = parent ? parent : check_intern(var);
}

void check_name_pointee(const struct cblock *holder, struct cblock *pointee) {
  if (holder && pointee && pointee->kind == CB_MAPPED &&
      !check_named(pointee->var) && check_named(holder->var))
    pointee->var = holder->var;
}

/* "base:line" of fields FILE and LINE of S, or NULL (also for flang's
 * ";unknown;unknown;0;0;;"). */
static char *file_line(const char *s, int file, int line) {
  char path[512], ln[32], out[600];
  if (!loc_field(s, file, path, sizeof path) || !path[0] ||
      !loc_field(s, line, ln, sizeof ln) ||
      (!strcmp(path, "unknown") && atoi(ln) == 0))
    return NULL;
  const char *slash = strrchr(path, '/');
  snprintf(out, sizeof out, "%s:%s", slash ? slash + 1 : path, ln);
  return strdup(out);
}

static char *make_where(const void *key) {
  const ident_t *loc = key;
  const char *s = loc->psource;
  char fn[256], ln[32], out[300];
  /* flang -g: ";FIRModule;PROGRAM;line;col;;", no file: the file of the
   * program's call into the runtime (its line table's line for that call
   * can be another line of the unit). */
  if (s && !loc_field_is_file(s, 0) && loc_field(s, 1, fn, sizeof fn) &&
      fn[0] && strcmp(fn, "unknown") && loc_field(s, 2, ln, sizeof ln) &&
      atoi(ln) > 0) {
    char file[256];
    if (rt_construct_ra &&
        callsite_file(rt_construct_ra, file, sizeof file))
      snprintf(out, sizeof out, "%s:%d", file, atoi(ln));
    else
      snprintf(out, sizeof out, "line %d of %s", atoi(ln), fn);
    return strdup(out);
  }
  char *r = s ? file_line(s, 0, 2) : NULL;
  return r ? r : strdup("unknown location");
}

const char *check_where(const ident_t *loc) {
  const char *r = loc ? intern_by(loc, make_where) : NULL;
  return r ? r : "unknown location";
}

/* The file of the function that holds kernel NAME's construct (NAME
 * "__omp_offloading_DEV_FILEID_FUNC_lN": FUNC, a symbol of the object the
 * launch came from), into FILE: 1, or 0. */
static int unit_file(const char *name, char *file, size_t len) {
  char sym[256];
  return rt_kernel_unit(name, sym, sizeof sym) &&
         callsite_symbol_file(rt_construct_ra, sym, file, len);
}

/* "file:N" (the launch's file, while a door set rt_construct_ra) or "line
 * N of FUNCTION" from an offload entry name, interned; NULL if the name
 * has no line. */
static char *make_kernel_where(const void *key) {
  char out[600], file[256];
  const char *name = (const char *)key - 1;
  long line = rt_kernel_line(name);
  /* with the launch's file, "file:line"; for a nowait region, whose
   * launch comes from a compiler's task function without lines (flang's
   * omp_target_task_proxy_func), the file of the kernel's own function */
  if (line && rt_construct_ra &&
      (callsite_file(rt_construct_ra, file, sizeof file) ||
       unit_file(name, file, sizeof file))) {
    snprintf(out, sizeof out, "%s:%ld", file, line);
    return strdup(out);
  }
  return rt_kernel_where(name, out, sizeof out) ? strdup(out) : NULL;
}

const char *check_where_kernel(const char *kernel) {
  /* Keyed one byte in: check_intern keeps the name itself under its own
   * address. */
  return kernel && kernel[0] ? intern_by(kernel + 1, make_kernel_where)
                             : NULL;
}

/* ---- words ---- */

const char *check_var_short(const char *var, uintptr_t hst, uintptr_t size,
                            char *buf, size_t len) {
  char expr[256];
  if (var && var[0] && var[0] != ';')
    snprintf(buf, len, "%s", var);
  else if (map_name_expr(var, expr, sizeof expr))
    snprintf(buf, len, "%s", expr);
  else if (hst)
    snprintf(buf, len, "host [" OMPEMU_PTR ", " OMPEMU_PTR ")", OMPEMU_P(hst),
             OMPEMU_P(hst + size));
  else
    snprintf(buf, len, "unnamed data");
  return buf;
}

const char *check_var_words(const char *var, uintptr_t hst, uintptr_t size,
                            char *buf, size_t len) {
  char expr[256];
  if (var && var[0] && var[0] != ';') {
    char src[256];
    snprintf(buf, len, "declare target variable %s",
             check_source_name(var, src, sizeof src));
    return buf;
  }
  char *decl = var ? file_line(var, map_name_file_field(var), 2) : NULL;
  check_var_short(var, hst, size, expr, sizeof expr);
  if (decl)
    snprintf(buf, len, "%s (declared at %s)", expr, decl);
  else
    snprintf(buf, len, "%s", expr);
  free(decl);
  return buf;
}

const char *check_block_words(const struct cblock *b, char *buf, size_t len) {
  if (b->kind == CB_API) {
    snprintf(buf, len, "%lu bytes from omp_target_alloc", (unsigned long)b->size);
    return buf;
  }
  if (b->kind == CB_PRIVATE) {
    char v[300];
    snprintf(buf, len, "the private copy of %s",
             check_var_short(b->var, b->hst, b->size, v, sizeof v));
    return buf;
  }
  return check_var_words(b->var, b->hst, b->size, buf, len);
}

const char *check_maptype_words(int64_t type, int at_exit, char *buf,
                                size_t len) {
  int to = (type & OMP_TGT_MAPTYPE_TO) != 0;
  int from = (type & OMP_TGT_MAPTYPE_FROM) != 0;
  const char *base = to && from ? "tofrom"
                     : to       ? "to"
                     : from     ? "from"
                     : (type & OMP_TGT_MAPTYPE_DELETE) ? "delete"
                     : at_exit ? "release"
                               : "alloc";
  snprintf(buf, len, "%s%s%s%s%s", (type & OMP_TGT_MAPTYPE_IMPLICIT)
                                       ? "implicit " : "",
           (type & OMP_TGT_MAPTYPE_ALWAYS) ? "always, " : "",
           (type & OMP_TGT_MAPTYPE_PRESENT) ? "present, " : "",
           (type & OMP_TGT_MAPTYPE_CLOSE) ? "close, " : "", base);
  return buf;
}

const char *check_region_words(int kind, int nowait) {
  switch (kind) {
  case OBS_R_TARGET:
    return nowait ? "target nowait region" : "target region";
  case OBS_R_ENTER_DATA:
    return "data region entry";
  case OBS_R_EXIT_DATA:
    return "data region exit";
  case OBS_R_UPDATE:
    return "target update";
  }
  return "construct";
}

/* ---- hashing ---- */

/* Eight independent 64-bit lanes of xor-rotate-add, in GNU C vectors of
 * four, mixed by multiplies at the end: a checksum for
 * telling identical contents from different ones (not against an
 * adversary), at a few instructions per 16 bytes on the 4 KiB copies of a
 * launch. */
typedef uint64_t v4u64 __attribute__((vector_size(32)));

/* One lane step (a macro: a function returning a vector would change
 * the ABI without AVX). */
#define STEP(l, w)                                                            \
  do {                                                                        \
    v4u64 x_ = (l) ^ (w);                                                     \
    (l) = (x_ << 23 | x_ >> 41) + (w);                                        \
  } while (0)

typedef int64_t v4i64 __attribute__((vector_size(32)));

/* Whether any lane of M is set. */
#define ANY(m) (((m)[0] | (m)[1] | (m)[2] | (m)[3]) != 0)

/* The lanes over whole 64-byte chunks at S; with DST, the chunks are
 * copied there too, and with SCAN, the words are compared with [LO,
 * LO + SPAN) as ompemu_first_word_in does (wordscan.c: one subtraction
 * and a signed compare per vector), a test of the result per KiB: the
 * number of leading bytes in which no word is in the range (a multiple of
 * 1 KiB, or all the chunks) is returned.  One pass over the bytes where
 * a copy to the device took three (docs/check.md, "Cost"). */
static inline __attribute__((always_inline)) size_t
lanes_core(const unsigned char *s, size_t chunks, uint64_t out[8], uint64_t n,
           unsigned char *dst, int scan, uint64_t lo, uint64_t span) {
  v4u64 a = {0x9e3779b97f4a7c15ull ^ n, 0x3c6ef372fe94f82aull,
             0xdaa66d2c7ddf743full, 0x78dde6e5fd29f054ull ^ n};
  v4u64 b = {0x1715609d7c746c69ull, 0xb54cda56fbbee87eull,
             0x53845c0f7b09e493ull, 0xf1bbcdc8fa54e0a8ull};
  const uint64_t sign = (uint64_t)1 << 63;
  const v4u64 vlo = {lo ^ sign, lo ^ sign, lo ^ sign, lo ^ sign};
  const v4i64 vlim = {(int64_t)(span ^ sign), (int64_t)(span ^ sign),
                      (int64_t)(span ^ sign), (int64_t)(span ^ sign)};
  v4i64 m = {0, 0, 0, 0};
  size_t clean = 0;
  int dirty = 0;
  /* Two chunks per step into four chains: a step's latency (xor, rotate,
   * add) no longer bounds the loop. */
  v4u64 c = a ^ b, d = a + b;
  size_t k = 0;
  for (; k + 2 <= chunks; k += 2) {
    /* Loads straight into vectors: copied through a 64-byte array, GCC
     * stored 16 bytes at a time and read 32 back, a failed store forward
     * per step (a fifth of --check's 4 KiB launch). */
    v4u64 w0, w1, w2, w3;
    memcpy(&w0, s + 64 * k, sizeof w0);
    memcpy(&w1, s + 64 * k + 32, sizeof w1);
    memcpy(&w2, s + 64 * k + 64, sizeof w2);
    memcpy(&w3, s + 64 * k + 96, sizeof w3);
    if (dst) {
      memcpy(dst + 64 * k, &w0, sizeof w0);
      memcpy(dst + 64 * k + 32, &w1, sizeof w1);
      memcpy(dst + 64 * k + 64, &w2, sizeof w2);
      memcpy(dst + 64 * k + 96, &w3, sizeof w3);
    }
    STEP(a, w0);
    STEP(b, w1);
    STEP(c, w2);
    STEP(d, w3);
    if (scan) {
      m |= ((v4i64)(w0 - vlo) < vlim) | ((v4i64)(w1 - vlo) < vlim) |
           ((v4i64)(w2 - vlo) < vlim) | ((v4i64)(w3 - vlo) < vlim);
      if ((k + 2) % 16 == 0 && !dirty) {
        if (ANY(m))
          dirty = 1;
        else
          clean = 64 * (k + 2);
      }
    }
  }
  if (k < chunks) {
    v4u64 w0, w1;
    memcpy(&w0, s + 64 * k, sizeof w0);
    memcpy(&w1, s + 64 * k + 32, sizeof w1);
    if (dst) {
      memcpy(dst + 64 * k, &w0, sizeof w0);
      memcpy(dst + 64 * k + 32, &w1, sizeof w1);
    }
    STEP(a, w0);
    STEP(b, w1);
    if (scan)
      m |= ((v4i64)(w0 - vlo) < vlim) | ((v4i64)(w1 - vlo) < vlim);
  }
  if (scan && !dirty && !ANY(m))
    clean = 64 * chunks;
  STEP(a, c);
  STEP(b, d);
  for (int j = 0; j < 4; j++) {
    out[j] = a[j];
    out[4 + j] = b[j];
  }
  return clean;
}

/* With AVX2 where the CPU has it, and AVX-512VL's vector rotate (one
 * instruction, not three: the same values, two thirds of the time) where
 * it has that (GNU function multiversioning on x86-64). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CLONES                                                                \
  __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define CLONES
#endif

CLONES static void lanes_of(const unsigned char *s, size_t chunks,
                            uint64_t out[8], uint64_t n) {
  lanes_core(s, chunks, out, n, NULL, 0, 0, 0);
}

CLONES static size_t lanes_pass(const unsigned char *s, size_t chunks,
                                uint64_t out[8], uint64_t n,
                                unsigned char *dst, int scan, uint64_t lo,
                                uint64_t span) {
  /* An instance per case: no test of DST and SCAN per step (a tenth of
   * the 4 KiB launch's pass). */
  if (dst && scan)
    return lanes_core(s, chunks, out, n, dst, 1, lo, span);
  if (dst)
    return lanes_core(s, chunks, out, n, dst, 0, 0, 0);
  if (scan)
    return lanes_core(s, chunks, out, n, NULL, 1, lo, span);
  return lanes_core(s, chunks, out, n, NULL, 0, 0, 0);
}

/* The hash of the N - N % 64 bytes whose LANES are given, and of the last
 * N % 64 at S. */
static inline __attribute__((always_inline)) uint64_t
hash_end(const uint64_t lanes[8], const unsigned char *s,
                         size_t n) {
  uint64_t h = 0x243f6a8885a308d3ull;
  for (int j = 0; j < 8; j++) {
    h = (h ^ lanes[j]) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    s += 8;
    n -= 8;
  }
  uint64_t w = 0;
  if (n) /* no call of memcpy for nothing */
    memcpy(&w, s, n);
  h = (h ^ w ^ ((uint64_t)n << 56)) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h ? h : 1;
}

uint64_t check_hash(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t lanes[8];
  lanes_of(s, n / 64, lanes, n);
  return hash_end(lanes, s + n / 64 * 64, n % 64);
}

uint64_t check_pass(void *dst, const void *src, size_t n, uint64_t lo,
                    uint64_t span, size_t *clean) {
  const unsigned char *s = src;
  uint64_t lanes[8];
  /* The scan's words are those of an aligned SRC (as the scans that
   * follow see them). */
  int scan = clean && (uintptr_t)s % 8 == 0;
  size_t c = lanes_pass(s, n / 64, lanes, n, dst, scan, lo, span);
  if (clean)
    *clean = scan ? c : 0;
  size_t whole = n / 64 * 64;
  if (dst && n % 64)
    memcpy((unsigned char *)dst + whole, s + whole, n % 64);
  return hash_end(lanes, s + whole, n % 64);
}

/* Copies under HASH_SMALL bytes (a map of a few words is the common one)
 * are hashed a word at a time, with the copy and the scan in the same
 * loop: check_hash's vector set-up and the mixing of its eight lanes cost
 * more than the bytes.  A different hash, so it is chosen by size: below
 * HASH_SMALL always this one (check.h, check_copy_hash). */
static inline uint64_t mix_word(uint64_t h, uint64_t w) {
  h = (h ^ w) * 0xff51afd7ed558ccdull;
  return h << 31 | h >> 33;
}

/* The words of N bytes at S (copied to D unless D is NULL: constant at
 * each use, so no test per word) hashed, and in *FIRST the index of the
 * first one in [LO, LO + SPAN), or their number; then the last N % 8
 * bytes. */
static inline __attribute__((always_inline)) uint64_t
pass_words(unsigned char *d, const unsigned char *s, size_t n, uint64_t lo,
           uint64_t span, size_t *first) {
  size_t words = n / 8, f = words, i = 0;
  uint64_t h = 0x243f6a8885a308d3ull ^ n;
  for (; i < words; i++) {
    uint64_t w;
    memcpy(&w, s + 8 * i, 8);
    if (d)
      memcpy(d + 8 * i, &w, 8);
    if (__builtin_expect(w - lo < span, 0) && f == words)
      f = i;
    h = mix_word(h, w);
  }
  *first = f;
  uint64_t w = 0;
  if (n % 8) {
    memcpy(&w, s + 8 * words, n % 8);
    if (d)
      memcpy(d + 8 * words, s + 8 * words, n % 8);
  }
  h = (h ^ w ^ ((uint64_t)(n % 8) << 56)) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  return h ? h : 1;
}

uint64_t check_copy_hash(const void *p, size_t n) {
  size_t first;
  return n >= HASH_SMALL ? check_hash(p, n)
                         : pass_words(NULL, p, n, 0, 0, &first);
}

uint64_t check_pass_small(void *dst, const void *src, size_t n, uint64_t lo,
                          uint64_t span, size_t *clean) {
  size_t first;
  uint64_t h = dst ? pass_words(dst, src, n, lo, span, &first)
                   : pass_words(NULL, src, n, lo, span, &first);
  if (clean)
    *clean = (uintptr_t)src % 8 ? 0 : 8 * first;
  return h;
}

/* ---- device memory through the plugin ---- */

uint64_t check_dev_epoch = 1;
unsigned long check_unsettled;

int check_synced(const struct cblock *b) {
  return !check_unsettled && b->synced == check_dev_epoch;
}

static struct rt_device *device(int32_t dev) { return rt_device_get(dev); }

int check_dev_read(int32_t dev, void *dst, uintptr_t tgt, size_t n) {
  struct rt_device *d = device(dev);
  if (!d || !n)
    return d ? 0 : -1;
  return d->plugin->data_retrieve(d->local_id, dst, (void *)tgt,
                                  (int64_t)n) == OFFLOAD_SUCCESS ? 0 : -1;
}

int check_dev_write(int32_t dev, uintptr_t tgt, const void *src, size_t n) {
  __atomic_fetch_add(&check_dev_epoch, 1, __ATOMIC_RELAXED);
  struct rt_device *d = device(dev);
  if (!d || !n)
    return d ? 0 : -1;
  if (d->plugin->data_submit(d->local_id, (void *)tgt, (void *)src,
                             (int64_t)n) != OFFLOAD_SUCCESS)
    return -1;
  check_dev_note(dev, tgt, src, n, 0);
  return 0;
}

/* Per global device: 1 the plugin leaves the scan of copies for device
 * addresses to check_dev_note, -1 it scans them itself (no such entry,
 * refused), 0 not asked yet. */
#define NOTE_DEVICES 64
static signed char notes[NOTE_DEVICES];

int check_dev_notes(int32_t dev) {
  if (dev < 0 || dev >= NOTE_DEVICES)
    return 0;
  signed char s = __atomic_load_n(&notes[dev], __ATOMIC_RELAXED);
  if (!s) {
    struct rt_device *d = device(dev);
    s = d && d->plugin->ompemu_note_pointers &&
                d->plugin->ompemu_note_pointers(d->local_id, NULL, 0,
                                                HOSTPTR_LO, HOSTPTR_SPAN) ==
                    OFFLOAD_SUCCESS
            ? 1
            : -1;
    __atomic_store_n(&notes[dev], s, __ATOMIC_RELAXED);
  }
  return s > 0;
}

void check_dev_note(int32_t dev, uintptr_t tgt, const void *src, size_t n,
                    size_t clean) {
  if (!check_dev_notes(dev) || n <= clean || n - clean < sizeof(uint64_t))
    return;
  struct rt_device *d = device(dev);
  d->plugin->ompemu_note_pointers(d->local_id, (const char *)src + clean,
                                  (int64_t)(n - clean), tgt + clean, 0);
}

int64_t check_dev_poisoned(int32_t dev, uintptr_t tgt, size_t n) {
  struct rt_device *d = device(dev);
  int64_t c = 0;
  if (!d || !d->plugin->ompemu_poisoned_bytes ||
      d->plugin->ompemu_poisoned_bytes(d->local_id, (void *)tgt, (int64_t)n,
                                       &c) != OFFLOAD_SUCCESS)
    return -1;
  return c;
}

int check_dev_watch(int32_t dev, uintptr_t tgt, size_t n, int on,
                    int64_t *first_read) {
  struct rt_device *d = device(dev);
  if (!d || !d->plugin->ompemu_watch_unwritten)
    return -1;
  return d->plugin->ompemu_watch_unwritten(d->local_id, (void *)tgt,
                                           (int64_t)n, on, first_read) ==
                 OFFLOAD_SUCCESS
             ? 0
             : -1;
}

uintptr_t check_dev_alias(int32_t dev, uintptr_t host, const char *desc) {
  struct rt_device *d = device(dev);
  if (!d || !d->plugin->ompemu_host_alias)
    return 0;
  return (uintptr_t)d->plugin->ompemu_host_alias(d->local_id, (void *)host,
                                                 desc);
}

/* ---- kernel arguments ---- */

int32_t check_arg_entry(const struct obs_event *e, int32_t k) {
  if (!e->maps || !e->argpos)
    return -1;
  for (int32_t i = 0; i < e->maps->n; i++)
    if (e->argpos[i] == k)
      return i;
  return -1;
}

int check_arg_narrow_literal(const struct obs_event *e, int32_t k) {
  int32_t i = check_arg_entry(e, k);
  /* Size 0: clang 22's `firstprivate(p)` of a pointer, a whole word. */
  return i >= 0 && (e->maps->types[i] & OMP_TGT_MAPTYPE_LITERAL) &&
         e->maps->sizes[i] > 0 &&
         (uint64_t)e->maps->sizes[i] < sizeof(uintptr_t);
}
