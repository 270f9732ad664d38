/* ompemu-dump --needs and --defines: what the dynamic loader will be asked
 * for, in lines a shell script can read (ompemu-run uses them to check a
 * program before starting it, without binutils).
 *   --needs FILE     FILE's PT_INTERP, DT_NEEDED, DT_RPATH, DT_RUNPATH,
 *                    DT_FLAGS and undefined dynamic symbols with the
 *                    version and the library the version is needed from;
 *                    then the same for each device image FILE embeds
 *                    (raw ELF or inside an OffloadBinary container),
 *                    every line prefixed with "image N".
 *   --defines FILE   the dynamic symbols FILE defines, with their version.
 * Fields are separated by one space; "-" stands for "none".  Names with
 * spaces or control characters are not printed (no ELF tool emits them). */
#include "config.h"

#include "dump.h"
#include "elfview.h"
#include "image_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Version indexes above this are refused as corrupt. */
#define MAX_VERSIONS 4096

struct verinfo {
  const char **name; /* by version index */
  const char **file; /* verneed: the library it is needed from */
  size_t n;
};

static void vi_free(struct verinfo *vi) {
  free(vi->name);
  free(vi->file);
  memset(vi, 0, sizeof *vi);
}

/* Record index NDX as NAME (needed from FILE, or NULL). */
static void vi_set(struct verinfo *vi, size_t ndx, const char *name,
                   const char *file) {
  if (ndx >= MAX_VERSIONS)
    return;
  if (ndx >= vi->n) {
    size_t n = ndx + 1;
    const char **a = realloc(vi->name, n * sizeof *a);
    if (!a)
      return;
    vi->name = a;
    const char **b = realloc(vi->file, n * sizeof *b);
    if (!b)
      return;
    vi->file = b;
    for (size_t i = vi->n; i < n; i++)
      vi->name[i] = vi->file[i] = NULL;
    vi->n = n;
  }
  vi->name[ndx] = name;
  vi->file[ndx] = file;
}

static uint16_t u16(const unsigned char *p) {
  uint16_t x;
  memcpy(&x, p, 2);
  return x;
}
static uint32_t u32(const unsigned char *p) {
  uint32_t x;
  memcpy(&x, p, 4);
  return x;
}

/* The section of TYPE, its bytes and header; NULL if absent or outside. */
static const unsigned char *section_of(struct ev *v, uint32_t type,
                                       GElf_Shdr *sh) {
  for (size_t i = 1; i < v->shnum; i++)
    if (ev_shdr(v, i, sh) && sh->sh_type == type)
      return ev_section_bytes(v, sh);
  return NULL;
}

/* Version names by index from .gnu.version_r (needed) and
 * .gnu.version_d (defined), every offset checked. */
static void load_versions(struct ev *v, struct verinfo *vi) {
  GElf_Shdr sh;
  const unsigned char *b = section_of(v, SHT_GNU_verneed, &sh);
  if (b) {
    uint64_t off = 0;
    for (uint64_t k = 0; k < sh.sh_info && k < MAX_VERSIONS; k++) {
      if (off + 16 > sh.sh_size)
        break;
      const unsigned char *vn = b + off;
      const char *file = elf_strptr(v->elf, sh.sh_link, u32(vn + 4));
      uint64_t aoff = off + u32(vn + 8);
      for (unsigned a = 0; a < u16(vn + 2) && a < MAX_VERSIONS; a++) {
        if (aoff + 16 > sh.sh_size)
          break;
        const unsigned char *vna = b + aoff;
        vi_set(vi, u16(vna + 6), elf_strptr(v->elf, sh.sh_link, u32(vna + 8)),
               file);
        if (!u32(vna + 12))
          break;
        aoff += u32(vna + 12);
      }
      if (!u32(vn + 12))
        break;
      off += u32(vn + 12);
    }
  }
  b = section_of(v, SHT_GNU_verdef, &sh);
  if (b) {
    uint64_t off = 0;
    for (uint64_t k = 0; k < sh.sh_info && k < MAX_VERSIONS; k++) {
      if (off + 20 > sh.sh_size)
        break;
      const unsigned char *vd = b + off;
      uint64_t aoff = off + u32(vd + 12);
      /* The base version (flag 1) names the file itself, not a node. */
      if (!(u16(vd + 2) & 1) && aoff + 8 <= sh.sh_size)
        vi_set(vi, u16(vd + 4),
               elf_strptr(v->elf, sh.sh_link, u32(b + aoff)), NULL);
      if (!u32(vd + 16))
        break;
      off += u32(vd + 16);
    }
  }
}

/* The version index of dynamic symbol I (0 when there is no table). */
static unsigned versym_of(struct ev *v, size_t i) {
  GElf_Shdr sh;
  const unsigned char *b = section_of(v, SHT_GNU_versym, &sh);
  if (!b || (i + 1) * 2 > sh.sh_size)
    return 0;
  return u16(b + 2 * i) & 0x7fff;
}

/* A token safe to print as one field. */
static const char *tok(const char *s) {
  if (!s || !*s)
    return "-";
  for (const char *p = s; *p; p++)
    if ((unsigned char)*p <= ' ' || *p == 0x7f)
      return "?";
  return s;
}

/* PT_INTERP, the dynamic section's NEEDED / RPATH / RUNPATH / FLAGS. */
static void print_dynamic(FILE *out, struct ev *v, const char *pre) {
  for (size_t i = 0; i < v->phnum; i++) {
    const GElf_Phdr *ph = &v->ph[i];
    if (ph->p_type != PT_INTERP || ph->p_offset >= v->size ||
        ph->p_filesz > v->size - ph->p_offset || ph->p_filesz == 0)
      continue;
    const char *s = (const char *)v->buf + ph->p_offset;
    if (memchr(s, '\0', ph->p_filesz))
      fprintf(out, "%sinterp %s\n", pre, tok(s));
  }
  for (size_t i = 1; i < v->shnum; i++) {
    Elf_Scn *scn = elf_getscn(v->elf, i);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
      continue;
    if (!ev_section_bytes(v, &sh) || sh.sh_link >= v->shnum) {
      fprintf(out, "%serror dynamic section is malformed\n", pre);
      return;
    }
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t n = d ? d->d_size / sizeof(Elf64_Dyn) : 0;
    int symbolic = 0;
    for (size_t k = 0; k < n; k++) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(d, (int)k, &dyn) || dyn.d_tag == DT_NULL)
        break;
      const char *what = dyn.d_tag == DT_NEEDED ? "needed"
                         : dyn.d_tag == DT_RPATH ? "rpath"
                         : dyn.d_tag == DT_RUNPATH ? "runpath"
                         : dyn.d_tag == DT_SONAME ? "soname" : NULL;
      if (what)
        fprintf(out, "%s%s %s\n", pre, what,
               tok(elf_strptr(v->elf, sh.sh_link, dyn.d_un.d_val)));
      else if ((dyn.d_tag == DT_FLAGS && (dyn.d_un.d_val & DF_SYMBOLIC)) ||
               dyn.d_tag == DT_SYMBOLIC)
        symbolic = 1;
    }
    if (symbolic)
      fprintf(out, "%sflags SYMBOLIC\n", pre);
    return;
  }
}

/* Dynamic symbols of V: undefined ones (UNDEF set) or defined ones. */
static void print_symbols(FILE *out, struct ev *v, const char *pre,
                          int undef) {
  struct verinfo vi = {0};
  load_versions(v, &vi);
  for (size_t i = 1; i < v->dynsym.count; i++) {
    GElf_Sym s;
    const char *n = ev_symname(v, &v->dynsym, i, &s);
    if (!n || !*n || (s.st_shndx == SHN_UNDEF) != undef)
      continue;
    if (!undef && GELF_ST_BIND(s.st_info) == STB_LOCAL)
      continue;
    unsigned x = versym_of(v, i);
    const char *ver = x > 1 && x < vi.n ? vi.name[x] : NULL;
    if (undef)
      fprintf(out, "%sundef %s %s %s %s\n", pre, tok(n), tok(ver),
             tok(x > 1 && x < vi.n ? vi.file[x] : NULL),
             GELF_ST_BIND(s.st_info) == STB_WEAK ? "weak" : "strong");
    else
      fprintf(out, "%sdef %s %s\n", pre, tok(n), tok(ver));
  }
  vi_free(&vi);
}

int dump_defines(struct ev *v, FILE *out) {
  print_symbols(out, v, "", 0);
  return 0;
}

/* The device image at [START, END) of V, as "image I ..." lines. */
static int needs_image(FILE *out, struct ev *v, size_t i, uint64_t start,
                       uint64_t end) {
  char pre[48];
  snprintf(pre, sizeof pre, "image %zu ", i);
  if (end < start || end - start > v->size) {
    fprintf(out, "%serror bounds 0x%lx..0x%lx are invalid\n", pre,
           (unsigned long)start, (unsigned long)end);
    return -1;
  }
  size_t len = (size_t)(end - start);
  unsigned char *bytes = malloc(len ? len : 1);
  if (!bytes || ev_read(v, start, bytes, len) != 0) {
    fprintf(out, "%serror bytes 0x%lx..0x%lx are not in the file\n", pre,
           (unsigned long)start, (unsigned long)end);
    free(bytes);
    return -1;
  }
  struct rt_image_desc d;
  char why[256];
  int rc = 0;
  if (rt_image_describe(bytes, bytes + len, &d, why, sizeof why) != 0) {
    fprintf(out, "%serror %s\n", pre, why);
    rc = -1;
  } else if (!d.is_elf) {
    fprintf(out, "%sformat %s %s\n", pre, "offload-binary",
           rt_image_kind_name(d.image_kind));
  } else {
    fprintf(out, "%sformat %s\n", pre, d.in_container ? "offload-binary" : "elf");
    struct dump_notes notes = {0};
    struct ev iv;
    const char *w;
    if (ev_open(&iv, d.code, d.code_size, &notes, &w) != 0) {
      fprintf(out, "%serror %s\n", pre, w);
      rc = -1;
    } else {
      print_dynamic(out, &iv, pre);
      print_symbols(out, &iv, pre, 1);
      ev_close(&iv);
    }
    for (size_t k = 0; k < notes.n; k++)
      free(notes.msgs[k]);
    free(notes.msgs);
  }
  free(bytes);
  return rc;
}

int dump_needs(struct ev *v, struct dump_report *rep, FILE *out) {
  print_dynamic(out, v, "");
  print_symbols(out, v, "", 1);
  int rc = 0;
  size_t k = 0;
  for (size_t d = 0; d < rep->ndescs; d++)
    for (size_t i = 0; i < rep->descs[d].nimages; i++, k++) {
      const struct dump_image *im = &rep->descs[d].images[i];
      if (needs_image(out, v, k, im->start, im->end) != 0)
        rc = -1;
    }
  return rc;
}
