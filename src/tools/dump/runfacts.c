/* ompemu-dump --run-facts and --run-missing: ompemu-run's checks of a
 * program, worked out from the --needs and --defines lines in one process
 * each (the script used to run awk, sed and ompemu-dump several times on
 * every start).
 *   --run-facts FILE   one line of shell assignments: interp, rpath and
 *                      runpath (the first of each), bad (the first device
 *                      image needing a libomptarget name ompemu-run does
 *                      not answer to: "N NAME"), libs (" NAME" for each
 *                      OpenMP runtime library a strong undefined symbol
 *                      is needed from); each value in single quotes, a
 *                      quote in it printed as '?'.  Nothing when --needs
 *                      would print nothing.
 *   --run-missing FILE NAME=LIB...
 *                      "program|image NAME LIB SYM,..." for the first of
 *                      the libraries NAME (found as the file LIB) that
 *                      lacks a strong undefined symbol FILE or one of its
 *                      images needs from it, with up to five of the
 *                      symbols; nothing when none lacks any.  A LIB that
 *                      cannot be read defines nothing. */
#include "config.h"

#include "dump.h"
#include "elfview.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The names ompemu's runtime answers to (ompemu-run's OMPEMU_RT_NAMES). */
static const char *const rt_names[] = {"libomptarget.so", "libomptarget.so.16",
                                       "libomptarget.so.19.1",
                                       "libomptarget.so.22.1"};

/* Lines of text, each split at single spaces into at most MAXF fields. */
enum { MAXF = 8 };
struct line {
  char *f[MAXF];
  int n;
};

/* Run FN (one of dump_needs / dump_defines) into memory and split its
 * lines; *TEXT holds the fields (the caller frees it and *LINES). */
static int lines_of(char **text, struct line **lines, size_t *nlines,
                    int (*fn)(struct ev *, struct dump_report *, FILE *),
                    struct ev *v, struct dump_report *rep) {
  size_t len = 0;
  FILE *m = open_memstream(text, &len);
  if (!m)
    return -1;
  int rc = fn(v, rep, m);
  if (fclose(m) != 0)
    return -1;
  size_t cap = 0;
  *lines = NULL;
  *nlines = 0;
  for (char *p = *text, *e; p && *p; p = e ? e + 1 : NULL) {
    e = strchr(p, '\n');
    if (e)
      *e = '\0';
    if (*nlines == cap) {
      cap = cap ? 2 * cap : 64;
      struct line *n = realloc(*lines, cap * sizeof *n);
      if (!n)
        return -1;
      *lines = n;
    }
    struct line *l = &(*lines)[(*nlines)++];
    l->n = 0;
    for (char *q = p, *s; q && l->n < MAXF; q = s ? s + 1 : NULL) {
      s = strchr(q, ' ');
      if (s)
        *s = '\0';
      if (*q)
        l->f[l->n++] = q;
    }
  }
  return rc;
}

static const char *field(const struct line *l, int i) {
  return i < l->n ? l->f[i] : "";
}

/* The library a strong undefined symbol of line L is needed from, and the
 * symbol (program "undef NAME VER LIB strong", image "image N undef ...");
 * NULL for any other line. */
static const char *strong_need(const struct line *l, const char **sym,
                               int *image) {
  int o = !strcmp(field(l, 0), "image") ? 2 : 0;
  if (strcmp(field(l, o), "undef") || strcmp(field(l, o + 4), "strong"))
    return NULL;
  *sym = field(l, o + 1);
  *image = o != 0;
  return field(l, o + 3);
}

static int is_omp_lib(const char *lib) {
  static const char *const pre[] = {"libomp.so", "libomptarget.so",
                                    "libgomp.so", "libiomp5.so"};
  for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
    if (!strncmp(lib, pre[i], strlen(pre[i])))
      return 1;
  return 0;
}

static void print_quoted(const char *name, const char *v) {
  printf("%s='", name);
  for (; *v; v++)
    putchar(*v == '\'' ? '?' : *v);
  printf("'");
}

int dump_run_facts(struct ev *v, struct dump_report *rep) {
  char *text = NULL;
  struct line *ls = NULL;
  size_t n = 0;
  int rc = lines_of(&text, &ls, &n, dump_needs, v, rep);
  const char *interp = "", *rpath = "", *runpath = "";
  char bad[512] = "", libs[4096] = "";
  for (size_t i = 0; i < n; i++) {
    const struct line *l = &ls[i];
    const char *k = field(l, 0), *sym;
    int image;
    if (!strcmp(k, "interp") && !*interp)
      interp = field(l, 1);
    else if (!strcmp(k, "rpath") && !*rpath)
      rpath = field(l, 1);
    else if (!strcmp(k, "runpath") && !*runpath)
      runpath = field(l, 1);
    else if (!strcmp(k, "image") && !strcmp(field(l, 2), "needed") &&
             !strncmp(field(l, 3), "libomptarget.so", 15) && !*bad) {
      int ours = 0;
      for (size_t j = 0; j < sizeof rt_names / sizeof *rt_names; j++)
        ours |= !strcmp(field(l, 3), rt_names[j]);
      if (!ours)
        snprintf(bad, sizeof bad, "%s %s", field(l, 1), field(l, 3));
    }
    const char *lib = strong_need(l, &sym, &image);
    if (lib && is_omp_lib(lib)) {
      size_t m = strlen(lib), have = strlen(libs);
      int seen = 0;
      for (const char *p = libs; (p = strstr(p, lib)); p += m)
        seen |= p[-1] == ' ' && (p[m] == ' ' || p[m] == '\0');
      if (!seen && have + m + 2 < sizeof libs)
        snprintf(libs + have, sizeof libs - have, " %s", lib);
    }
  }
  if (n) {
    print_quoted("interp", interp);
    print_quoted(" rpath", rpath);
    print_quoted(" runpath", runpath);
    print_quoted(" bad", bad);
    print_quoted(" libs", libs);
    putchar('\n');
  }
  free(ls);
  free(text);
  return rc;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The names of the dynamic symbols library file PATH defines (what
 * --defines prints), sorted; none when it cannot be read.  Read through
 * libelf on the file, not whole: a library is megabytes, its .dynsym a
 * few pages.  *E holds the names; the caller ends it. */
static char **names_defined(const char *path, Elf **e, size_t *count) {
  *e = NULL;
  *count = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  elf_version(EV_CURRENT);
  *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
  close(fd); /* the mapping stays */
  GElf_Ehdr eh;
  if (!*e || elf_kind(*e) != ELF_K_ELF || gelf_getclass(*e) != ELFCLASS64 ||
      !gelf_getehdr(*e, &eh))
    return NULL;
  for (Elf_Scn *scn = NULL; (scn = elf_nextscn(*e, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
        !sh.sh_entsize)
      continue;
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t n = d ? d->d_size / sh.sh_entsize : 0;
    char **names = malloc((n ? n : 1) * sizeof *names);
    if (!names)
      return NULL;
    for (size_t i = 1; i < n; i++) {
      GElf_Sym sym;
      const char *nm;
      if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
          GELF_ST_BIND(sym.st_info) == STB_LOCAL ||
          !(nm = elf_strptr(*e, sh.sh_link, sym.st_name)) || !*nm)
        continue;
      /* --defines prints "?" for a name with blanks or controls. */
      for (const char *q = nm; *q; q++)
        if ((unsigned char)*q <= ' ' || *q == 0x7f) {
          nm = "?";
          break;
        }
      names[(*count)++] = (char *)nm;
    }
    qsort(names, *count, sizeof *names, cmp_str);
    return names;
  }
  return NULL;
}

int dump_run_missing(struct ev *v, struct dump_report *rep, char **libs,
                     int nlibs) {
  char *text = NULL;
  struct line *ls = NULL;
  size_t n = 0;
  int rc = lines_of(&text, &ls, &n, dump_needs, v, rep);
  Elf **dtext = calloc((size_t)nlibs + 1, sizeof *dtext);
  char ***defs = calloc((size_t)nlibs + 1, sizeof *defs);
  size_t *ndefs = calloc((size_t)nlibs + 1, sizeof *ndefs);
  int *loaded = calloc((size_t)nlibs + 1, sizeof *loaded);
  if (!dtext || !defs || !ndefs || !loaded) {
    rc = -1;
    goto out;
  }
  int bad = -1, count = 0, img = 0;
  char syms[1024] = "";
  for (size_t i = 0; i < n; i++) {
    const char *sym;
    int image;
    const char *lib = strong_need(&ls[i], &sym, &image);
    if (!lib)
      continue;
    int j = 0;
    size_t m = strlen(lib);
    while (j < nlibs && !(!strncmp(libs[j], lib, m) && libs[j][m] == '='))
      j++;
    if (j == nlibs || (bad >= 0 && j != bad))
      continue;
    if (!loaded[j]) {
      defs[j] = names_defined(libs[j] + m + 1, &dtext[j], &ndefs[j]);
      loaded[j] = 1;
    }
    if (defs[j] && bsearch(&sym, defs[j], ndefs[j], sizeof *defs[j], cmp_str))
      continue;
    bad = j;
    /* Each symbol once, the first five named. */
    int seen = 0;
    for (size_t k = 0; k < i && !seen; k++) {
      const char *s2;
      int im2;
      const char *l2 = strong_need(&ls[k], &s2, &im2);
      seen = l2 && !strcmp(l2, lib) && !strcmp(s2, sym);
    }
    if (seen)
      continue;
    if (++count <= 5) {
      size_t h = strlen(syms);
      snprintf(syms + h, sizeof syms - h, "%s%s", count > 1 ? ", " : "", sym);
    }
    img |= image;
  }
  if (bad >= 0) {
    const char *eq = strchr(libs[bad], '=');
    printf("%s %.*s %s %s\n", img ? "image" : "program",
           (int)(eq - libs[bad]), libs[bad], eq + 1, syms);
  }
out:
  for (int j = 0; dtext && defs && j < nlibs; j++) {
    free(defs[j]);
    if (dtext[j])
      elf_end(dtext[j]);
  }
  free(dtext);
  free(defs);
  free(ndefs);
  free(loaded);
  free(ls);
  free(text);
  return rc;
}
