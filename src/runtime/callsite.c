/* Naming the user's call of an API routine from its return address
 * (callsite.h): the object that holds it (dl_iterate_phdr), its line
 * table, and the call's text in the source file.  The last CACHE_SLOTS
 * calls named are kept, so that a bug repeated in a loop reads the line
 * table once. */
#define _GNU_SOURCE
#include "config.h"
#include "callsite.h"
#include "dwarf_line.h"

#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TEXT_MAX 4096
#define TEXT_LINES 16
#define CACHE_SLOTS 16

struct cached {
  const void *ra;
  const char *api;
  struct callsite cs;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached *cache; /* CACHE_SLOTS, by RA */

struct find_obj {
  uintptr_t pc;
  uintptr_t bias;
  char path[1024];
  int found;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  struct find_obj *f = arg;
  (void)size;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type != PT_LOAD || f->pc < lo || f->pc - lo >= ph->p_memsz)
      continue;
    f->bias = info->dlpi_addr;
    if (info->dlpi_name && info->dlpi_name[0]) {
      snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
    } else {
      ssize_t n = readlink("/proc/self/exe", f->path, sizeof f->path - 1);
      f->path[n > 0 ? n : 0] = 0;
    }
    f->found = 1;
    return 1;
  }
  return 0;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Where RA's call is: into CS->where; the line table's location in *LOC
 * when there is one (1), else 0. */
static int locate(const void *ra, struct callsite *cs, struct dwl_loc *loc) {
  struct find_obj f = {.pc = (uintptr_t)ra - 1};
  cs->where[0] = 0;
  cs->has_line = 0;
  if (!ra || !dl_iterate_phdr(find_cb, &f) || !f.found || !f.path[0])
    return 0;
  char err[256];
  uint64_t off = (uint64_t)(f.pc - f.bias);
  if (dwl_lookup(f.path, off, loc, err, sizeof err) == 1 && loc->line) {
    snprintf(cs->where, sizeof cs->where, "%s:%u", base_name(loc->file),
             loc->line);
    cs->has_line = 1;
    return 1;
  }
  snprintf(cs->where, sizeof cs->where, "%s+0x%llx", base_name(f.path),
           (unsigned long long)off);
  return 0;
}

int callsite_object(const void *addr, char *path, size_t len) {
  struct find_obj f = {.pc = (uintptr_t)addr};
  if (!addr || !dl_iterate_phdr(find_cb, &f) || !f.found || !f.path[0])
    return 0;
  snprintf(path, len, "%s", f.path);
  return 1;
}

/* The function symbol of the ELF file PATH (.symtab, which static
 * functions are in, else .dynsym) at offset *OFF, its name into NAME; or,
 * with NAME_IN set, the one named NAME_IN, its offset into *OFF. */
static int symbol_find(const char *path, uint64_t *off, const char *name_in,
                       char *name, size_t len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
  if (fd < 0)
    return 0;
  (void)elf_version(EV_CURRENT);
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  for (int pass = 0; e && pass < 2 && !found; pass++) {
    Elf_Scn *scn = NULL;
    while (!found && (scn = elf_nextscn(e, scn))) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh) ||
          sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
        continue;
      Elf_Data *d = elf_getdata(scn, NULL);
      size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
      for (size_t i = 0; i < n; i++) {
        GElf_Sym sym;
        const char *nm;
        if (!gelf_getsym(d, (int)i, &sym) ||
            GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_shndx ||
            (!name_in && sym.st_value != *off) ||
            !(nm = elf_strptr(e, sh.sh_link, sym.st_name)) || !nm[0] ||
            (name_in && strcmp(nm, name_in)))
          continue;
        if (name_in)
          *off = sym.st_value;
        else
          snprintf(name, len, "%s", nm);
        found = 1;
        break;
      }
    }
  }
  if (e)
    elf_end(e);
  close(fd);
  return found;
}

#define FN_SLOTS 16
static struct {
  const void *addr;
  char name[96]; /* "" when none */
} fn_cache[FN_SLOTS];

int callsite_function(const void *addr, char *name, size_t len) {
  struct find_obj f = {.pc = (uintptr_t)addr};
  size_t h = ((uintptr_t)addr >> 4) % FN_SLOTS;
  pthread_mutex_lock(&cache_lock);
  if (fn_cache[h].addr != addr) {
    fn_cache[h].addr = addr;
    fn_cache[h].name[0] = 0;
    if (addr && dl_iterate_phdr(find_cb, &f) && f.found && f.path[0]) {
      uint64_t off = (uint64_t)(f.pc - f.bias);
      (void)symbol_find(f.path, &off, NULL, fn_cache[h].name,
                        sizeof fn_cache[h].name);
    }
  }
  int found = fn_cache[h].name[0] != 0;
  if (found)
    snprintf(name, len, "%s", fn_cache[h].name);
  pthread_mutex_unlock(&cache_lock);
  return found;
}

int callsite_symbol_file(const void *in_obj, const char *sym, char *file,
                         size_t len) {
  struct find_obj f = {.pc = (uintptr_t)in_obj};
  struct dwl_loc loc;
  char err[128];
  uint64_t off = 0;
  if (!in_obj || !sym || !dl_iterate_phdr(find_cb, &f) || !f.found ||
      !f.path[0] || !symbol_find(f.path, &off, sym, NULL, 0) ||
      dwl_lookup(f.path, off, &loc, err, sizeof err) != 1 || !loc.file[0])
    return 0;
  snprintf(file, len, "%s", base_name(loc.file));
  return 1;
}

__thread const void *rt_construct_ra;

int callsite_file(const void *ra, char *buf, size_t len) {
  struct callsite cs;
  callsite_resolve(ra, "", &cs);
  char *colon = strrchr(cs.where, ':');
  if (!cs.has_line || !colon)
    return 0;
  snprintf(buf, len, "%.*s", (int)(colon - cs.where), cs.where);
  return 1;
}

void callsite_where(const void *ra, char *buf, size_t len) {
  struct callsite cs;
  callsite_resolve(ra, "", &cs);
  snprintf(buf, len, "%s", cs.where);
}

/* Lines LINE.. of PATH (at most TEXT_LINES, TEXT_MAX bytes) into BUF, or
 * -1 when the file cannot be read or is shorter. */
static int read_lines(const char *path, unsigned line, char *buf) {
  FILE *fp = fopen(path, "re");
  if (!fp)
    return -1;
  char *l = NULL;
  size_t cap = 0, n = 0;
  unsigned at = 0, taken = 0;
  ssize_t got;
  buf[0] = 0;
  while (taken < TEXT_LINES && (got = getline(&l, &cap, fp)) >= 0) {
    if (++at < line)
      continue;
    size_t k = (size_t)got < TEXT_MAX - 1 - n ? (size_t)got : TEXT_MAX - 1 - n;
    memcpy(buf + n, l, k);
    n += k;
    buf[n] = 0;
    taken++;
  }
  free(l);
  fclose(fp);
  return taken ? 0 : -1;
}

static int ident_char(int c) { return isalnum(c) || c == '_' || c == '$'; }

/* The call of API in LINE (one line of TEXT) at or after COL0: a pointer
 * past its '(' or NULL. */
static const char *find_call(const char *text, size_t linelen, size_t from,
                             const char *api) {
  size_t an = strlen(api);
  for (size_t i = from; i + an <= linelen; i++) {
    if (strncasecmp(text + i, api, an) != 0 || ident_char(text[i + an]) ||
        (i > 0 && ident_char(text[i - 1])))
      continue;
    const char *p = text + i + an;
    while (*p == ' ' || *p == '\t')
      p++;
    if (*p == '(')
      return p + 1;
  }
  return NULL;
}

/* Appends C to argument A (collapsing white space). */
static void arg_put(char *a, size_t len, char c) {
  size_t n = strlen(a);
  if (isspace((unsigned char)c)) {
    if (n == 0 || a[n - 1] == ' ')
      return;
    c = ' ';
  }
  if (n + 1 < len) {
    a[n] = c;
    a[n + 1] = 0;
  }
}

static void arg_trim(char *a) {
  size_t n = strlen(a);
  while (n && a[n - 1] == ' ')
    a[--n] = 0;
}

int callsite_split(const char *text, size_t col0, const char *api,
                   struct callsite *cs) {
  size_t linelen = strcspn(text, "\n");
  const char *p = find_call(text, linelen, col0 < linelen ? col0 : 0, api);
  if (!p && col0)
    p = find_call(text, linelen, 0, api);
  cs->nargs = 0;
  if (!p)
    return 0;
  int depth = 0, n = 0;
  char quote = 0;
  memset(cs->args, 0, sizeof cs->args);
  for (; *p; p++) {
    char c = *p;
    if (quote) {
      if (c == '\\' && p[1])
        arg_put(cs->args[n], sizeof cs->args[n], *p++);
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '&' && cs->fortran) {
      /* a Fortran continuation: '&' at the end of a line, and at the start
       * of the next; in C, '&' followed by more on its line is kept */
      const char *q = p + 1;
      while (*q == ' ' || *q == '\t')
        q++;
      if (*q == '!')
        q += strcspn(q, "\n");
      if (*q == '\n') {
        q++;
        while (*q == ' ' || *q == '\t')
          q++;
        if (*q == '&')
          q++;
        p = q - 1;
        continue;
      }
    } else if (!cs->fortran && c == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      if (!e)
        break;
      p = e + 1;
      continue;
    } else if (cs->fortran ? c == '!' : c == '/' && p[1] == '/') {
      p += strcspn(p, "\n");
      if (!*p)
        break;
      continue;
    } else if (c == '(' || c == '[' || c == '{') {
      depth++;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth-- == 0) {
        arg_trim(cs->args[n]);
        cs->nargs = cs->args[n][0] || n ? n + 1 : 0;
        return cs->nargs;
      }
    } else if (c == ',' && depth == 0) {
      arg_trim(cs->args[n]);
      if (++n == CALLSITE_ARGS)
        break;
      continue;
    }
    arg_put(cs->args[n], sizeof cs->args[n], c);
  }
  memset(cs->args, 0, sizeof cs->args);
  return 0; /* the call does not end in the text read */
}

/* CS for the call of API returning to RA, from the cache: 1, or 0. */
static int cache_get(const void *ra, const char *api, struct callsite *cs) {
  int hit = 0;
  pthread_mutex_lock(&cache_lock);
  struct cached *c = cache ? &cache[((uintptr_t)ra >> 2) % CACHE_SLOTS] : NULL;
  if (c && c->ra == ra && c->api && !strcmp(c->api, api)) {
    *cs = c->cs;
    hit = 1;
  }
  pthread_mutex_unlock(&cache_lock);
  return hit;
}

static void cache_put(const void *ra, const char *api,
                      const struct callsite *cs) {
  pthread_mutex_lock(&cache_lock);
  if (!cache)
    cache = calloc(CACHE_SLOTS, sizeof *cache);
  if (cache)
    cache[((uintptr_t)ra >> 2) % CACHE_SLOTS] = (struct cached){ra, api, *cs};
  pthread_mutex_unlock(&cache_lock);
}

void callsite_resolve(const void *ra, const char *api, struct callsite *cs) {
  struct dwl_loc loc;
  cs->nargs = 0;
  cs->fortran = 0;
  if (ra && cache_get(ra, api, cs))
    return;
  if (!locate(ra, cs, &loc) || !*api)
    goto done;
  char *text = malloc(TEXT_MAX);
  const char *dot = strrchr(loc.file, '.');
  cs->fortran = dot && (dot[1] == 'f' || dot[1] == 'F');
  if (text && read_lines(loc.file, loc.line, text) == 0)
    (void)callsite_split(text, loc.column ? loc.column - 1 : 0, api, cs);
  free(text);
done:
  if (ra)
    cache_put(ra, api, cs);
}

const char *callsite_arg(const struct callsite *cs, int i) {
  if (i < 0 || i >= cs->nargs || !cs->args[i][0])
    return NULL;
  return cs->args[i];
}
