/* Host pointers reaching device code (docs/check.md, "Device code reaching
 * host memory").  A host data address found where device code will read
 * it (a word of the bytes a copy puts on the device, a kernel argument,
 * an unmapped pointer that reached the kernel as NULL) is replaced in the
 * device copy by an alias from the plugin (__tgt_rtl_ompemu_host_alias):
 * device code that dereferences it faults, and the plugin's message names
 * the host pointer and the description given here (variable, offset,
 * construct).  Nothing is reported until then, so a pointer the kernel
 * never dereferences is no finding.  Copies back to the host put the host
 * values back wherever an alias arrives.
 *
 * What is a host data address: a value inside a readable, non-executable
 * mapping of /proc/self/maps that is not device memory.  Host code is
 * treated the same way: a value inside an executable mapping that is not
 * device memory and not an offload entry (a `declare target indirect`
 * function's host address is one: the device translates it) gets an
 * alias too, so device code that calls a host function pointer faults
 * at the call, named (it would run the host's code here, and crash on a
 * GPU).  Device memory is every block the table knows (live or freed) and
 * every run of adjacent mappings holding a live one (the plugin's reserved
 * ranges), kernel entries, aliases, and the host vtables of vtable entries
 * (a GPU runtime translates those).  The
 * snapshot of the mappings is read once and again, at most once per
 * construct, when a value lands where new host memory may have appeared
 * (the heap's end, the mmap area).  Under unified shared memory host
 * pointers are the device's too: nothing is done. */
#define _GNU_SOURCE
#include "config.h"
#include "callsite.h"
#include "check.h"
#include "dwarf_member.h"
#include "locstr.h"
#include "wordscan.h"
#include "core.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LOW_LIMIT HOSTPTR_LO
#define USER_END (HOSTPTR_LO + HOSTPTR_SPAN)
#define MMAP_AREA ((uintptr_t)0x7f0000000000)
#define MAX_ANCHORS 64
#define WORD sizeof(uintptr_t)

struct vma {
  uintptr_t lo, hi;
  int host_data; /* readable, not executable, not device memory */
  int host_code; /* executable, not device memory */
};

static struct vma *vmas;
static size_t nvmas;
static size_t heap_vma = SIZE_MAX; /* the one ending at the program break */
static int loaded, rebuilt_this_region;
static uintptr_t anchors[MAX_ANCHORS]; /* code addresses: kernel entries */
static int nanchors;

/* Aliases handed out: alias -> host value. */
struct alias {
  uintptr_t alias, host;
};
static struct alias *atab;
static size_t acap, aused;
static uintptr_t alias_lo = UINTPTR_MAX, alias_hi;

static int anchored(uintptr_t lo, uintptr_t hi) {
  if (cb_is_device_anchor(lo, hi))
    return 1;
  for (int i = 0; i < nanchors; i++)
    if (anchors[i] >= lo && anchors[i] < hi)
      return 1;
  return alias_hi && alias_lo < hi && alias_hi >= lo;
}

static void anchor(uintptr_t code) {
  for (int i = 0; i < nanchors; i++)
    if ((anchors[i] >> 24) == (code >> 24))
      return;
  if (nanchors < MAX_ANCHORS)
    anchors[nanchors++] = code;
}

/* The device code every loaded image put in the address space: its first
 * entry anchors the image's mappings (and the plugin's reservation around
 * them) as device memory from the start, before any kernel runs (words of
 * a program's data that happen to equal such an address are no host
 * pointers).  The loaded lists only grow (newest first) until exit. */
static void anchor_images(void) {
  for (int32_t id = 0; id < rt_num_devices(); id++) {
    struct rt_device *d = rt_device_get(id);
    for (struct rt_loaded *x = d ? __atomic_load_n(&d->loaded,
                                                   __ATOMIC_ACQUIRE)
                                 : NULL;
         x; x = x->next)
      if (x->table && x->table->EntriesBegin < x->table->EntriesEnd &&
          x->table->EntriesBegin->addr)
        anchor((uintptr_t)x->table->EntriesBegin->addr);
  }
}

/* Read /proc/self/maps into VMAS. */
static void load(void) {
  anchor_images();
  int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap + 1);
  for (;;) {
    if (!buf)
      break;
    if (len == cap) {
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + len, cap - len);
    if (r <= 0)
      break;
    len += (size_t)r;
  }
  close(fd);
  if (!buf)
    return;
  buf[len] = '\0';
  size_t n = 0;
  for (char *p = buf; *p; p++)
    n += *p == '\n';
  struct vma *v = malloc((n + 1) * sizeof *v);
  int *exec = malloc((n + 1) * sizeof *exec);
  int *readable = malloc((n + 1) * sizeof *readable);
  size_t k = 0;
  for (char *line = buf; v && exec && readable && *line && k <= n;) {
    char *nl = strchr(line, '\n');
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3) {
      v[k].lo = lo;
      v[k].hi = hi;
      readable[k] = perms[0] == 'r';
      exec[k] = perms[2] == 'x';
      k++;
    }
    if (!nl)
      break;
    line = nl + 1;
  }
  free(buf);
  if (!v || !exec || !readable) {
    free(v);
    free(exec);
    free(readable);
    return;
  }
  /* Runs of adjacent mappings holding device memory are device memory. */
  for (size_t i = 0; i < k;) {
    size_t j = i + 1;
    while (j < k && v[j].lo == v[j - 1].hi)
      j++;
    int dev = anchored(v[i].lo, v[j - 1].hi);
    for (size_t m = i; m < j; m++) {
      v[m].host_data = !dev && readable[m] && !exec[m];
      v[m].host_code = !dev && exec[m];
    }
    i = j;
  }
  free(exec);
  free(readable);
  free(vmas);
  vmas = v;
  nvmas = k;
  loaded = 1;
  uintptr_t brk = (uintptr_t)sbrk(0);
  heap_vma = SIZE_MAX;
  for (size_t i = 0; i < k; i++)
    if (v[i].lo < brk && brk <= v[i].hi && v[i].host_data)
      heap_vma = i;
}

/* X lies where the heap has grown since the snapshot (between its end
 * then and the program break now, before the next mapping): the heap's
 * mapping reaches there now, with no new look at the address space (a
 * program that maps a fresh malloc'ed block in every construct would
 * have it read every construct). */
static const struct vma *heap_grown(uintptr_t x) {
  if (heap_vma >= nvmas || x < vmas[heap_vma].hi)
    return NULL;
  uintptr_t brk = (uintptr_t)sbrk(0);
  if (heap_vma + 1 < nvmas && brk > vmas[heap_vma + 1].lo)
    return NULL;
  if (x >= brk)
    return NULL;
  vmas[heap_vma].hi = (brk + 4095) & ~(uintptr_t)4095; /* pages */
  return &vmas[heap_vma];
}

static const struct vma *find_vma(uintptr_t x) {
  size_t lo = 0, hi = nvmas;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (x < vmas[mid].lo)
      hi = mid;
    else if (x >= vmas[mid].hi)
      lo = mid + 1;
    else
      return &vmas[mid];
  }
  return NULL;
}

int hostptr_is_alias(uintptr_t v) {
  return alias_hi && v >= alias_lo && v <= alias_hi;
}

/* AddressSanitizer's shadow on x86-64: readable mappings that no program
 * points into, where small integer pairs would otherwise look like
 * pointers (and be replaced by aliases in the device copy). */
#define ASAN_SHADOW_LO ((uintptr_t)0x00007fff8000)
#define ASAN_SHADOW_HI ((uintptr_t)0x10007fff8000)
static int asan_shadow(uintptr_t x) {
  static int asan = -1;
  if (asan < 0)
    asan = dlsym(RTLD_DEFAULT, "__asan_init") != NULL;
  return asan && x >= ASAN_SHADOW_LO && x < ASAN_SHADOW_HI;
}

enum { HOST_NONE, HOST_DATA, HOST_CODE };

/* What host memory X is (see the top of the file): HOST_DATA, HOST_CODE,
 * or HOST_NONE for device memory and values that point nowhere. */
static int host_kind(uintptr_t x) {
  /* A freed block's address is device memory too (a use after exit data,
   * reported as such at the launch), also when no live block is left to
   * mark the plugin's range as the device's. */
  if (x < LOW_LIMIT || x >= USER_END || hostptr_is_alias(x) ||
      cb_find_any(x) || cb_find_freed(-1, x) || rt_index_in_vtable(x) ||
      asan_shadow(x))
    return HOST_NONE;
  if (!loaded)
    load();
  const struct vma *m = find_vma(x);
  if (!m)
    m = heap_grown(x);
  /* New host memory appears in the mmap area, or at the heap's end
   * (heap_grown; a look only when the snapshot had no heap): not in the
   * gaps below the break (a struct's padding beside an int often reads as
   * such an address, and would make every construct look again). */
  if (!m && !rebuilt_this_region &&
      (x >= MMAP_AREA ||
       (heap_vma == SIZE_MAX && x < (uintptr_t)sbrk(0) && nvmas &&
        x >= vmas[0].lo))) {
    rebuilt_this_region = 1;
    load();
    m = find_vma(x);
  }
  if (m && m->host_data)
    return HOST_DATA;
  struct rt_lib *lib;
  int idx;
  if (m && m->host_code && rt_index_find((void *)x, &lib, &idx) != 0)
    return HOST_CODE;
  return HOST_NONE;
}

/* ", which points to the host function NAME at FILE:LINE" for host code
 * at X, with what the dynamic symbols and the line table (-g) know. */
static const char *code_words(uintptr_t x, char *buf, size_t len) {
  char at[100], fn[96];
  /* One past X: callsite_where looks up the byte before a return
   * address, here the function's first. */
  callsite_where((const void *)(x + 1), at, sizeof at);
  int line = strchr(at, ':') != NULL;
  if (callsite_function((const void *)x, fn, sizeof fn))
    snprintf(buf, len, ", which points to the host function %.60s%s%.90s",
             fn, line ? " at " : "", line ? at : "");
  else if (line)
    snprintf(buf, len, ", which points to a host function at %s", at);
  else
    snprintf(buf, len, ", which points to host code%s%s", at[0] ? " at " : "",
             at);
  return buf;
}

void hostptr_region_begin(void) { rebuilt_this_region = 0; }

static void remember_alias(uintptr_t alias, uintptr_t host) {
  if (aused * 2 >= acap) {
    size_t nc = acap ? acap * 2 : 64;
    struct alias *t = calloc(nc, sizeof *t);
    if (!t)
      return;
    for (size_t i = 0; i < acap; i++)
      if (atab[i].alias) {
        size_t j = (atab[i].alias >> 3) % nc;
        while (t[j].alias)
          j = (j + 1) % nc;
        t[j] = atab[i];
      }
    free(atab);
    atab = t;
    acap = nc;
  }
  size_t j = (alias >> 3) % acap;
  while (atab[j].alias && atab[j].alias != alias)
    j = (j + 1) % acap;
  if (!atab[j].alias)
    aused++;
  atab[j].alias = alias;
  atab[j].host = host;
  if (alias < alias_lo)
    alias_lo = alias;
  if (alias > alias_hi)
    alias_hi = alias;
}

uintptr_t hostptr_host_of(uintptr_t alias) {
  if (!acap)
    return 0;
  size_t j = (alias >> 3) % acap;
  while (atab[j].alias) {
    if (atab[j].alias == alias)
      return atab[j].host;
    j = (j + 1) % acap;
  }
  return 0;
}

/* An alias of host value V for device DEV, remembered; 0 if none. */
static uintptr_t alias_for(int32_t dev, uintptr_t v, const char *desc) {
  uintptr_t a = check_dev_alias(dev, v, desc);
  if (a)
    remember_alias(a, v);
  return a;
}

/* Names of the pointers at an offset of a mapped variable, asked of its
 * debug information (dwarf_member.c) once per variable and offset. */
#define PART_SLOTS 64
struct part {
  const char *var;
  uintptr_t off;
  char name[96]; /* "" when none */
};
static struct part parts[PART_SLOTS];
static pthread_mutex_t parts_lock = PTHREAD_MUTEX_INITIALIZER;

/* " s.next" for the word at OFF of the block mapped as map name VAR (a
 * leading space, to follow "the pointer"), or "". */
static const char *part_words(const char *var, uintptr_t off, char *buf,
                              size_t len) {
  buf[0] = 0;
  if (!var || !var[0])
    return buf;
  size_t h = (((uintptr_t)var >> 3) * 31 + off / WORD) % PART_SLOTS;
  pthread_mutex_lock(&parts_lock);
  struct part *p = &parts[h];
  if (p->var != var || p->off != off) {
    char expr[256], ln[32], path[1024];
    unsigned line = 0;
    p->var = var;
    p->off = off;
    p->name[0] = 0;
    if (var[0] == ';') {
      if (map_name_expr(var, expr, sizeof expr) &&
          loc_field(var, 2, ln, sizeof ln))
        line = (unsigned)atoi(ln);
      else
        expr[0] = 0;
    } else {
      snprintf(expr, sizeof expr, "%s", var); /* a declare-target global */
    }
    /* The checker's names are copies: the object is the one whose code
     * called into the runtime for this construct. */
    if (expr[0] && callsite_object(rt_construct_ra, path, sizeof path))
      (void)dw_member_name(path, expr, line, off, p->name, sizeof p->name);
  }
  if (p->name[0])
    snprintf(buf, len, " %s", p->name);
  pthread_mutex_unlock(&parts_lock);
  return buf;
}

/* The alias of host pointer V (a HOST_* KIND) found at offset OFF of
 * block B, copied there at WHERE (OWN: the copy's name when it is that
 * one pointer, else ""); 0 when none is given. */
static uintptr_t alias_in_block(const struct cblock *b, int kind, uintptr_t v,
                                uintptr_t off, const char *own,
                                const char *where) {
  char desc[500], var[80], mt[48], fn[256] = "", part[100];
  if (kind == HOST_CODE)
    code_words(v, fn, sizeof fn);
  check_var_short(b->var, b->hst, b->size, var, sizeof var);
  if (own[0])
    snprintf(part, sizeof part, " %s", own);
  else
    part_words(b->var, (uintptr_t)off, part, sizeof part);
  /* A struct's block mapped alloc got this word from a member's entry
   * (clang 14 to 19 lower `map(to: s) map(tofrom: s.p[0:n])` so): the
   * block's own map type would mislead. */
  if (b->kind == CB_MAPPED &&
      (b->maptype & (OMP_TGT_MAPTYPE_TO | OMP_TGT_MAPTYPE_FROM)))
    snprintf(desc, sizeof desc, "the pointer%s at offset %lu of %s (map "
             "%s)%s, copied at %s", part, (unsigned long)off, var,
             check_maptype_words(b->maptype, 0, mt, sizeof mt), fn, where);
  else if (b->kind == CB_MAPPED)
    snprintf(desc, sizeof desc, "the pointer%s at offset %lu of %s%s, "
             "copied at %s", part, (unsigned long)off, var, fn, where);
  else
    snprintf(desc, sizeof desc, "the pointer%s at offset %lu of %s%s%s, "
             "copied at %s", part, (unsigned long)off,
             b->kind == CB_PRIVATE ? "the private copy of " : "", var, fn,
             where);
  return alias_for(b->dev, v, desc);
}

/* The aliases given lately, by everything their descriptions are made
 * of: a launch loop copies the same struct, host pointer and all, again
 * and again, and the description (names, snprintf) cost more than the
 * rest of the copy.  The plugin gives the same alias for the same host
 * pointer and description.  The checker's lock is held. */
struct given {
  const char *bvar, *own_var, *where;
  uintptr_t bhst, bsize, off, v;
  int64_t maptype;
  int32_t dev;
  int kind, bkind;
};
#define GIVEN_SLOTS 64
static struct {
  struct given key;
  uintptr_t alias;
} given[GIVEN_SLOTS];

void hostptr_after_copy_to(struct cblock *b, uintptr_t tgt, uintptr_t hst,
                           uintptr_t size, const char *var, const char *where,
                           uintptr_t clean) {
  if (!b || rt_usm() || size <= clean || size - clean < WORD)
    return;
  /* A copy of one pointer of its own (a member's entry: `this->d`, `s.p`)
   * is named by its entry. */
  char own[96];
  if (size != WORD || hst % WORD || !check_named(var) ||
      !map_name_expr(var, own, sizeof own))
    own[0] = 0;
  tgt += clean;
  hst += clean;
  size -= clean;
  uintptr_t first = (hst + WORD - 1) & ~(uintptr_t)(WORD - 1);
  size_t words = first + WORD <= hst + size ? (hst + size - first) / WORD : 0;
  for (size_t i = 0;
       (i += ompemu_first_word_in((const void *)(first + i * WORD), words - i,
                                  LOW_LIMIT, USER_END - LOW_LIMIT)) < words;
       i++) {
    uintptr_t h = first + i * WORD;
    uintptr_t v = *(const uintptr_t *)h;
    int kind = host_kind(v);
    if (kind == HOST_NONE)
      continue;
    uintptr_t slot = tgt + (h - hst);
    struct given k;
    memset(&k, 0, sizeof k); /* the padding too: keys are compared whole */
    k.bvar = b->var;
    k.own_var = own[0] ? var : NULL;
    k.where = where;
    k.bhst = b->hst;
    k.bsize = b->size;
    k.off = slot - b->tgt;
    k.v = v;
    k.maptype = b->maptype;
    k.dev = b->dev;
    k.kind = kind;
    k.bkind = b->kind;
    uint64_t gh = (uint64_t)v * 0x9e3779b97f4a7c15u ^
                  (uint64_t)(k.off + k.bhst) * 0xc2b2ae3d27d4eb4fu;
    size_t g = (size_t)(gh >> 58) % GIVEN_SLOTS;
    uintptr_t a;
    if (given[g].alias && memcmp(&given[g].key, &k, sizeof k) == 0) {
      a = given[g].alias;
    } else {
      a = alias_in_block(b, kind, v, k.off, own, where);
      if (a) {
        given[g].key = k;
        given[g].alias = a;
      }
    }
    if (!a || check_dev_write(b->dev, slot, &a, WORD) != 0)
      continue;
    if (b->expect)
      memcpy(b->expect + (slot - b->tgt), &a, WORD);
    cb_mark_pointer(b, slot - b->tgt);
  }
}

int hostptr_alias_range(uintptr_t *lo, uintptr_t *span) {
  if (!alias_hi)
    return 0;
  *lo = alias_lo;
  *span = alias_hi - alias_lo + 1;
  return 1;
}

void hostptr_after_copy_from(uintptr_t hst, uintptr_t size) {
  if (!alias_hi || size < WORD)
    return;
  uintptr_t first = (hst + WORD - 1) & ~(uintptr_t)(WORD - 1);
  size_t words = first + WORD <= hst + size ? (hst + size - first) / WORD : 0;
  for (size_t i = 0;
       (i += ompemu_first_word_in((const void *)(first + i * WORD), words - i,
                                  alias_lo, alias_hi - alias_lo + 1)) < words;
       i++) {
    uintptr_t *h = (uintptr_t *)(first + i * WORD);
    uintptr_t host = hostptr_host_of(*h);
    if (host)
      *h = host;
  }
}

/* Kernel argument V of launch E (map name NAME) is another device's
 * memory (`is_device_ptr` of a pointer from omp_target_alloc on device
 * 1, the kernel on device 0): on a GPU an access faults or reads another
 * card's memory through no mapping; here the devices share the process,
 * so it is said at the launch. */
static void other_device_arg(const struct obs_event *e, uintptr_t v,
                             const char *name, const char *where) {
  const struct cblock *b = v ? cb_find_any(v) : NULL;
  if (!b || b->dev == e->device)
    return;
  char var[80], bw[400];
  check_finding("device memory of another device: kernel %s at %s runs on "
                "device %d and was given %s = " OMPEMU_PTR ", which is "
                "device %d's memory (%s); a device reaches only its own "
                "memory: allocate or map it on device %d",
                e->kernel ? e->kernel : "?", where, (int)e->device,
                check_var_short(name, 0, 0, var, sizeof var), OMPEMU_P(v),
                (int)b->dev, check_block_words(b, bw, sizeof bw),
                (int)e->device);
}

void hostptr_kernel_args(struct obs_event *e, const char *where) {
  if (e->entry)
    anchor((uintptr_t)e->entry);
  if (rt_usm() || !e->args)
    return;
  for (int32_t k = 0; k < e->nargs; k++) {
    uintptr_t v = (uintptr_t)e->args[k];
    int32_t i = check_arg_entry(e, k);
    const struct rt_args *m = e->maps;
    const char *name = i >= 0 && m->names ? (const char *)m->names[i] : NULL;
    int64_t type = i >= 0 ? m->types[i] : 0;
    if (check_arg_narrow_literal(e, k))
      continue;
    const char *how;
    if (!v && i >= 0 && m->sizes[i] == 0 && m->begin[i] &&
        !(type & (OMP_TGT_MAPTYPE_LITERAL | OMP_TGT_MAPTYPE_PRIVATE))) {
      v = (uintptr_t)m->begin[i]; /* an unmapped pointer, passed as NULL */
      how = "an unmapped pointer of";
    } else if (i >= 0 && m->sizes[i] == 0 &&
               !(type & OMP_TGT_MAPTYPE_LITERAL)) {
      how = "an unmapped pointer of";
    } else {
      how = "a host address passed to";
    }
    int kind = host_kind(v);
    if (kind == HOST_NONE) {
      other_device_arg(e, v, name, where);
      continue;
    }
    char desc[400], var[80], fn[256] = "";
    if (kind == HOST_CODE) {
      how = "passed to";
      code_words(v, fn, sizeof fn);
    }
    snprintf(desc, sizeof desc, "%s%s, %s the %s at %s",
             check_var_short(name, 0, 0, var, sizeof var), fn, how,
             e->nowait ? "target nowait region" : "target region", where);
    uintptr_t a = alias_for(e->device, v, desc);
    if (a)
      e->args[k] = (void *)a;
  }
}
