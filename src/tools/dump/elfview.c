/* The bounds-checked ELF view of ompemu-dump (see elfview.h). */
#include "config.h"

#include "elfview.h"
#include "dump.h"

#include <stdlib.h>
#include <string.h>

/* Is [OFF, OFF+LEN) inside a buffer of SIZE bytes? */
static int in_file(uint64_t off, uint64_t len, size_t size) {
  return off <= size && len <= size - off;
}

int ev_shdr(struct ev *v, size_t i, GElf_Shdr *out) {
  Elf_Scn *scn = i < v->shnum ? elf_getscn(v->elf, i) : NULL;
  if (!scn || !gelf_getshdr(scn, out))
    return 0;
  if (v->is_rel)
    out->sh_addr = (uint64_t)i << EV_REL_SHIFT;
  return 1;
}

static int cmp_rel(const void *a, const void *b) {
  const struct ev_rel *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

/* Collect the dynamic relocations (allocated SHT_RELA sections). */
static void load_relocs(struct ev *v) {
  size_t cap = 0;
  for (size_t i = 1; i < v->shnum; i++) {
    Elf_Scn *scn = elf_getscn(v->elf, i);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
      continue;
    /* Linked files: the dynamic relocations.  Objects: all of them, at
     * the synthetic address of the section they apply to. */
    uint64_t base = 0;
    if (v->is_rel) {
      if (sh.sh_info == 0 || sh.sh_info >= v->shnum)
        continue;
      base = (uint64_t)sh.sh_info << EV_REL_SHIFT;
    } else if (!(sh.sh_flags & SHF_ALLOC)) {
      continue;
    }
    if (!in_file(sh.sh_offset, sh.sh_size, v->size)) {
      dump_note(v->notes, "relocation section %zu lies outside the file", i);
      continue;
    }
    Elf_Data *d = elf_getdata(scn, NULL);
    if (!d)
      continue;
    size_t n = sh.sh_size / sizeof(Elf64_Rela);
    for (size_t k = 0; k < n; k++) {
      GElf_Rela r;
      if (!gelf_getrela(d, (int)k, &r))
        break;
      if (v->nrels == cap) {
        size_t ncap = cap ? cap * 2 : 64;
        struct ev_rel *nr = realloc(v->rels, ncap * sizeof(*nr));
        if (!nr)
          return;
        v->rels = nr;
        cap = ncap;
      }
      v->rels[v->nrels++] = (struct ev_rel){
          base + r.r_offset, (uint32_t)GELF_R_TYPE(r.r_info),
          (uint32_t)GELF_R_SYM(r.r_info), r.r_addend};
    }
  }
  if (v->nrels)
    qsort(v->rels, v->nrels, sizeof(*v->rels), cmp_rel);
}

static void load_symtab(struct ev *v, uint32_t type, struct ev_symtab *t) {
  for (size_t i = 1; i < v->shnum; i++) {
    Elf_Scn *scn = elf_getscn(v->elf, i);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != type)
      continue;
    if (!in_file(sh.sh_offset, sh.sh_size, v->size) ||
        sh.sh_link >= v->shnum) {
      dump_note(v->notes, "symbol table %zu is malformed; ignored", i);
      return;
    }
    t->data = elf_getdata(scn, NULL);
    t->count = t->data ? t->data->d_size / sizeof(Elf64_Sym) : 0;
    t->strndx = sh.sh_link;
    return;
  }
}

int ev_open(struct ev *v, const void *bytes, size_t len,
            struct dump_notes *notes, const char **why) {
  memset(v, 0, sizeof(*v));
  v->notes = notes;
  *why = "not an ELF file";
  if (len < EI_NIDENT || memcmp(bytes, ELFMAG, SELFMAG) != 0)
    return -1;
  if (((const unsigned char *)bytes)[EI_CLASS] != ELFCLASS64) {
    *why = "not a 64-bit ELF file (only ELF64 is understood)";
    return -1;
  }
  if (len < sizeof(Elf64_Ehdr)) {
    *why = "truncated ELF header";
    return -1;
  }
  v->buf = malloc(len);
  if (!v->buf) {
    *why = "out of memory";
    return -1;
  }
  memcpy(v->buf, bytes, len);
  v->size = len;
  elf_version(EV_CURRENT);
  v->elf = elf_memory((char *)v->buf, len);
  if (!v->elf || elf_kind(v->elf) != ELF_K_ELF || !gelf_getehdr(v->elf, &v->eh)) {
    *why = "malformed ELF header";
    ev_close(v);
    return -1;
  }
  if (v->eh.e_ident[EI_DATA] != ELFDATA2LSB)
    dump_note(notes, "big-endian file: values are shown as libelf converts them");

  /* Section headers: optional (a file may have none), but if present they
   * must lie in the file. */
  if (elf_getshdrnum(v->elf, &v->shnum) != 0 ||
      (v->shnum && !in_file(v->eh.e_shoff,
                            (uint64_t)v->shnum * sizeof(Elf64_Shdr), v->size))) {
    dump_note(notes, "section header table is outside the file; sections ignored");
    v->shnum = 0;
  }
  if (v->shnum && (elf_getshdrstrndx(v->elf, &v->shstrndx) != 0 ||
                   v->shstrndx >= v->shnum)) {
    dump_note(notes, "no valid section name table; sections ignored");
    v->shnum = 0;
  }

  size_t phnum = 0;
  if (elf_getphdrnum(v->elf, &phnum) == 0 && phnum > 0) {
    if (!in_file(v->eh.e_phoff, (uint64_t)phnum * sizeof(Elf64_Phdr),
                 v->size)) {
      dump_note(notes, "program header table is outside the file; ignored");
    } else if ((v->ph = calloc(phnum, sizeof(GElf_Phdr)))) {
      for (size_t i = 0; i < phnum; i++)
        if (gelf_getphdr(v->elf, (int)i, &v->ph[v->phnum]))
          v->phnum++;
    }
  }
  if (v->eh.e_phnum && !v->phnum)
    dump_note(notes, "the header claims %u program headers; none could be read",
              (unsigned)v->eh.e_phnum);
  if (v->eh.e_shnum && !v->shnum)
    dump_note(notes, "the header claims %u sections; none could be read",
              (unsigned)v->eh.e_shnum);
  v->is_rel = v->eh.e_type == ET_REL;
  load_symtab(v, SHT_SYMTAB, &v->symtab);
  load_symtab(v, SHT_DYNSYM, &v->dynsym);
  v->relsyms = v->is_rel ? &v->symtab : &v->dynsym;
  if (v->eh.e_machine == EM_X86_64)
    load_relocs(v);
  return 0;
}

void ev_close(struct ev *v) {
  free(v->byaddr);
  free(v->dynnames);
  if (v->elf)
    elf_end(v->elf);
  free(v->ph);
  free(v->rels);
  free(v->buf);
  memset(v, 0, sizeof(*v));
}

int ev_section(struct ev *v, const char *name, GElf_Shdr *out) {
  for (size_t i = 1; i < v->shnum; i++) {
    GElf_Shdr sh;
    if (!ev_shdr(v, i, &sh))
      continue;
    const char *n = elf_strptr(v->elf, v->shstrndx, sh.sh_name);
    if (n && strcmp(n, name) == 0) {
      *out = sh;
      return 1;
    }
  }
  return 0;
}

const unsigned char *ev_section_bytes(struct ev *v, const GElf_Shdr *sh) {
  if (sh->sh_type == SHT_NOBITS || !in_file(sh->sh_offset, sh->sh_size, v->size))
    return NULL;
  return v->buf + sh->sh_offset;
}

/* Translate [VADDR, VADDR+LEN) to file bytes: through PT_LOAD segments when
 * the file has program headers, else through allocated sections.  Returns
 * the file offset, or -1 (not mapped) / -2 (mapped but not in the file:
 * bss, reads as zeros). */
static int64_t translate(struct ev *v, uint64_t vaddr, size_t len) {
  if (len > v->size || vaddr + len < vaddr)
    return -1;
  if (v->phnum) {
    for (size_t i = 0; i < v->phnum; i++) {
      GElf_Phdr *p = &v->ph[i];
      if (p->p_type != PT_LOAD || vaddr < p->p_vaddr)
        continue;
      uint64_t rel = vaddr - p->p_vaddr;
      if (rel + len <= p->p_filesz) {
        if (!in_file(p->p_offset + rel, len, v->size) ||
            p->p_offset + rel < p->p_offset)
          return -1;
        return (int64_t)(p->p_offset + rel);
      }
      if (rel >= p->p_filesz && rel + len <= p->p_memsz)
        return -2;
    }
    return -1;
  }
  for (size_t i = 1; i < v->shnum; i++) {
    GElf_Shdr sh;
    if (!ev_shdr(v, i, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
        sh.sh_addr == 0 || vaddr < sh.sh_addr)
      continue;
    uint64_t rel = vaddr - sh.sh_addr;
    if (rel + len > sh.sh_size)
      continue;
    if (sh.sh_type == SHT_NOBITS)
      return -2;
    if (!in_file(sh.sh_offset + rel, len, v->size))
      return -1;
    return (int64_t)(sh.sh_offset + rel);
  }
  return -1;
}

int ev_mapped(struct ev *v, uint64_t vaddr, size_t len) {
  return translate(v, vaddr, len) != -1;
}

int ev_read(struct ev *v, uint64_t vaddr, void *dst, size_t len) {
  int64_t off = translate(v, vaddr, len);
  if (off == -1)
    return -1;
  if (off == -2)
    memset(dst, 0, len);
  else
    memcpy(dst, v->buf + off, len);
  return 0;
}

const char *ev_symname(struct ev *v, struct ev_symtab *t, size_t i,
                       GElf_Sym *out) {
  if (!t->data || i >= t->count || !gelf_getsym(t->data, (int)i, out))
    return NULL;
  if (v->is_rel && out->st_shndx != SHN_UNDEF &&
      out->st_shndx < SHN_LORESERVE)
    out->st_value += (uint64_t)out->st_shndx << EV_REL_SHIFT;
  return elf_strptr(v->elf, t->strndx, out->st_name);
}

int ev_read_ptr(struct ev *v, uint64_t vaddr, uint64_t *val,
                const char **import) {
  *import = NULL;
  size_t lo = 0, hi = v->nrels;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->rels[mid].off < vaddr)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < v->nrels && v->rels[lo].off == vaddr) {
    struct ev_rel *r = &v->rels[lo];
    GElf_Sym s;
    const char *name;
    switch (r->type) {
    case R_X86_64_RELATIVE:
      *val = (uint64_t)r->addend;
      return ev_mapped(v, vaddr, 8) ? 0 : -1;
    case R_X86_64_64:
    case R_X86_64_GLOB_DAT:
    case R_X86_64_JUMP_SLOT:
      name = ev_symname(v, v->relsyms, r->sym, &s);
      if (name && s.st_shndx != SHN_UNDEF) {
        *val = s.st_value + (uint64_t)r->addend;
      } else {
        *val = 0;
        *import = name ? name : "?";
      }
      return 0;
    default:
      break;
    }
  }
  return ev_read(v, vaddr, val, 8);
}

char *ev_string(struct ev *v, uint64_t vaddr, size_t max) {
  /* Fast path: the whole string lies in one stretch of file bytes. */
  size_t probe = max < v->size ? max : v->size;
  while (probe > 0) {
    int64_t off = translate(v, vaddr, probe);
    if (off >= 0) {
      const char *p = (const char *)v->buf + off;
      const char *nul = memchr(p, '\0', probe);
      if (nul)
        return strndup(p, (size_t)(nul - p));
      break;
    }
    probe /= 2; /* the stretch ends sooner: try a shorter one */
  }
  /* Slow path, byte by byte (a string running into bss, or unmapped). */
  size_t cap = 64, len = 0;
  char *s = malloc(cap);
  while (s && len < max) {
    if (ev_read(v, vaddr + len, &s[len], 1) != 0)
      break;
    if (s[len] == '\0')
      return s;
    if (++len == cap) {
      char *n = realloc(s, cap *= 2);
      if (!n)
        break;
      s = n;
    }
  }
  free(s);
  return NULL;
}

static int find_in(struct ev *v, struct ev_symtab *t, const char *name,
                   GElf_Sym *out) {
  for (size_t i = 1; i < t->count; i++) {
    const char *n = ev_symname(v, t, i, out);
    if (n && out->st_shndx != SHN_UNDEF && strcmp(n, name) == 0)
      return 1;
  }
  return 0;
}

int ev_symbol(struct ev *v, const char *name, GElf_Sym *out) {
  return find_in(v, &v->symtab, name, out) || find_in(v, &v->dynsym, name, out);
}

static int cmp_addrsym(const void *a, const void *b) {
  const struct ev_addrsym *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Build the address and name indexes once. */
static void build_indexes(struct ev *v) {
  v->indexed = 1;
  struct ev_symtab *tabs[2] = {&v->symtab, &v->dynsym};
  size_t total = v->symtab.count + v->dynsym.count, order = 0;
  v->byaddr = total ? calloc(total, sizeof(*v->byaddr)) : NULL;
  v->dynnames = v->dynsym.count ? calloc(v->dynsym.count, sizeof(char *))
                                : NULL;
  for (int k = 0; k < 2; k++)
    for (size_t i = 1; i < tabs[k]->count; i++) {
      GElf_Sym s;
      const char *n = ev_symname(v, tabs[k], i, &s);
      order++;
      if (!n || !*n || s.st_shndx == SHN_UNDEF)
        continue;
      int type = GELF_ST_TYPE(s.st_info);
      if (v->byaddr && (type == STT_FUNC || type == STT_OBJECT))
        v->byaddr[v->nbyaddr++] = (struct ev_addrsym){s.st_value, order, n};
      if (k == 1 && v->dynnames)
        v->dynnames[v->ndynnames++] = n;
    }
  if (v->nbyaddr)
    qsort(v->byaddr, v->nbyaddr, sizeof(*v->byaddr), cmp_addrsym);
  if (v->ndynnames)
    qsort(v->dynnames, v->ndynnames, sizeof(char *), cmp_name);
}

int ev_dynsym_defines(struct ev *v, const char *name) {
  if (!v->indexed)
    build_indexes(v);
  return v->ndynnames && bsearch(&name, v->dynnames, v->ndynnames,
                                 sizeof(char *), cmp_name) != NULL;
}

const char *ev_symbol_at(struct ev *v, uint64_t addr) {
  if (!v->indexed)
    build_indexes(v);
  size_t lo = 0, hi = v->nbyaddr;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v->byaddr[mid].addr < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < v->nbyaddr && v->byaddr[lo].addr == addr ? v->byaddr[lo].name
                                                       : NULL;
}
