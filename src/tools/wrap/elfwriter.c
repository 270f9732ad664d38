/* The relocatable-object writer of ompemu-wrap: keeps sections, symbols
 * and relocations in memory and lays them out with libelf (elf_update
 * computes the file offsets).  See elfwriter.h. */
#include "config.h"

#include "elfwriter.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ow_reloc {
  uint64_t off;
  uint32_t type;
  int sym;
  int64_t addend;
};

struct ow_section {
  char *name;
  uint32_t type;
  uint64_t flags;
  uint64_t align;
  unsigned char *bytes;
  size_t size, cap;
  struct ow_reloc *relocs;
  size_t nrelocs, relcap;
  int secsym; /* handle of its STT_SECTION symbol, or -1 */
};

struct ow_symbol {
  char *name;
  int bind, type, vis, sec;
  uint64_t value, size;
  size_t final_index; /* index in .symtab, set by ow_write */
};

struct ow_obj {
  struct ow_section *secs;
  size_t nsecs, seccap;
  struct ow_symbol *syms;
  size_t nsyms, symcap;
};

/* Grow the array *P of *CAP elements of ELEM bytes to hold NEED. */
static int grow(void *p, size_t *cap, size_t need, size_t elem) {
  void **arr = p;
  if (need <= *cap)
    return 0;
  size_t ncap = *cap ? *cap : 8;
  while (ncap < need) {
    if (ncap > SIZE_MAX / 2 / elem)
      return -1;
    ncap *= 2;
  }
  void *n = realloc(*arr, ncap * elem);
  if (!n)
    return -1;
  *arr = n;
  *cap = ncap;
  return 0;
}

struct ow_obj *ow_new(void) { return calloc(1, sizeof(struct ow_obj)); }

void ow_free(struct ow_obj *obj) {
  if (!obj)
    return;
  for (size_t i = 0; i < obj->nsecs; i++) {
    free(obj->secs[i].name);
    free(obj->secs[i].bytes);
    free(obj->secs[i].relocs);
  }
  for (size_t i = 0; i < obj->nsyms; i++)
    free(obj->syms[i].name);
  free(obj->secs);
  free(obj->syms);
  free(obj);
}

int ow_section(struct ow_obj *obj, const char *name, uint32_t type,
               uint64_t flags, uint64_t align) {
  if (grow(&obj->secs, &obj->seccap, obj->nsecs + 1, sizeof(*obj->secs)))
    return -1;
  struct ow_section *s = &obj->secs[obj->nsecs];
  memset(s, 0, sizeof(*s));
  s->name = strdup(name);
  if (!s->name)
    return -1;
  s->type = type;
  s->flags = flags;
  s->align = align ? align : 1;
  s->secsym = -1;
  return (int)obj->nsecs++;
}

int ow_append(struct ow_obj *obj, int sec, const void *data, size_t len,
              uint64_t align, uint64_t *off) {
  if (sec < 0 || (size_t)sec >= obj->nsecs)
    return -1;
  struct ow_section *s = &obj->secs[sec];
  if (align == 0)
    align = 1;
  size_t start = (s->size + align - 1) & ~(size_t)(align - 1);
  if (start < s->size || len > SIZE_MAX - start)
    return -1;
  if (grow(&s->bytes, &s->cap, start + len, 1))
    return -1;
  memset(s->bytes + s->size, 0, start - s->size);
  if (data)
    memcpy(s->bytes + start, data, len);
  else
    memset(s->bytes + start, 0, len);
  s->size = start + len;
  if (align > s->align)
    s->align = align;
  if (off)
    *off = start;
  return 0;
}

int ow_patch(struct ow_obj *obj, int sec, uint64_t off, const void *data,
             size_t len) {
  if (sec < 0 || (size_t)sec >= obj->nsecs)
    return -1;
  struct ow_section *s = &obj->secs[sec];
  if (off > s->size || len > s->size - off)
    return -1;
  memcpy(s->bytes + off, data, len);
  return 0;
}

uint64_t ow_section_size(const struct ow_obj *obj, int sec) {
  return (sec < 0 || (size_t)sec >= obj->nsecs) ? 0 : obj->secs[sec].size;
}

int ow_symbol(struct ow_obj *obj, const char *name, int bind, int type,
              int vis, int sec, uint64_t value, uint64_t size) {
  if (sec >= (int)obj->nsecs)
    return -1;
  if (grow(&obj->syms, &obj->symcap, obj->nsyms + 1, sizeof(*obj->syms)))
    return -1;
  struct ow_symbol *y = &obj->syms[obj->nsyms];
  memset(y, 0, sizeof(*y));
  y->name = strdup(name ? name : "");
  if (!y->name)
    return -1;
  y->bind = bind;
  y->type = type;
  y->vis = vis;
  y->sec = sec;
  y->value = value;
  y->size = size;
  return (int)obj->nsyms++;
}

int ow_section_symbol(struct ow_obj *obj, int sec) {
  if (sec < 0 || (size_t)sec >= obj->nsecs)
    return -1;
  if (obj->secs[sec].secsym < 0)
    obj->secs[sec].secsym =
        ow_symbol(obj, "", STB_LOCAL, STT_SECTION, STV_DEFAULT, sec, 0, 0);
  return obj->secs[sec].secsym;
}

int ow_reloc(struct ow_obj *obj, int sec, uint64_t off, uint32_t type,
             int sym, int64_t addend) {
  if (sec < 0 || (size_t)sec >= obj->nsecs || sym < 0 ||
      (size_t)sym >= obj->nsyms)
    return -1;
  struct ow_section *s = &obj->secs[sec];
  if (grow(&s->relocs, &s->relcap, s->nrelocs + 1, sizeof(*s->relocs)))
    return -1;
  s->relocs[s->nrelocs++] = (struct ow_reloc){off, type, sym, addend};
  return 0;
}

/* A growing string table: NUL first, names appended. */
struct strtab {
  char *buf;
  size_t size, cap;
};

static int strtab_add(struct strtab *t, const char *s, size_t *off) {
  size_t len = strlen(s) + 1;
  if (t->size == 0) {
    if (grow(&t->buf, &t->cap, 1, 1))
      return -1;
    t->buf[0] = '\0';
    t->size = 1;
  }
  if (*s == '\0') {
    *off = 0;
    return 0;
  }
  if (grow(&t->buf, &t->cap, t->size + len, 1))
    return -1;
  memcpy(t->buf + t->size, s, len);
  *off = t->size;
  t->size += len;
  return 0;
}

/* A new section in ELF with the given header fields and one data block. */
static Elf_Scn *emit_scn(Elf *elf, size_t name, uint32_t type, uint64_t flags,
                         uint64_t align, void *bytes, size_t size,
                         uint64_t entsize, Elf_Type dtype) {
  Elf_Scn *scn = elf_newscn(elf);
  if (!scn)
    return NULL;
  Elf_Data *d = elf_newdata(scn);
  if (!d)
    return NULL;
  d->d_buf = bytes;
  d->d_size = size;
  d->d_type = dtype;
  d->d_align = align;
  d->d_off = 0;
  d->d_version = EV_CURRENT;
  GElf_Shdr sh;
  if (!gelf_getshdr(scn, &sh))
    return NULL;
  sh.sh_name = name;
  sh.sh_type = type;
  sh.sh_flags = flags;
  sh.sh_addralign = align;
  sh.sh_entsize = entsize;
  sh.sh_size = size;
  if (!gelf_update_shdr(scn, &sh))
    return NULL;
  return scn;
}

static int set_link_info(Elf_Scn *scn, uint32_t link, uint32_t info) {
  GElf_Shdr sh;
  if (!gelf_getshdr(scn, &sh))
    return -1;
  sh.sh_link = link;
  sh.sh_info = info;
  return gelf_update_shdr(scn, &sh) ? 0 : -1;
}

int ow_write(struct ow_obj *obj, int fd, const char *path) {
  int rc = -1;
  Elf *elf = NULL;
  struct strtab shstr = {0}, str = {0};
  Elf64_Sym *symtab = NULL;
  Elf64_Rela **relas = NULL;
  size_t *shname = NULL, *relname = NULL, *scnidx = NULL;
  size_t nsyms = obj->nsyms + 1;
  const char *what = "libelf";

  if (elf_version(EV_CURRENT) == EV_NONE)
    goto fail;
  elf = elf_begin(fd, ELF_C_WRITE, NULL);
  if (!elf)
    goto fail;
  Elf64_Ehdr *eh = elf64_newehdr(elf);
  if (!eh)
    goto fail;
  eh->e_ident[EI_CLASS] = ELFCLASS64;
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
  eh->e_ident[EI_OSABI] = ELFOSABI_NONE;
  eh->e_type = ET_REL;
  eh->e_machine = EM_X86_64;
  eh->e_version = EV_CURRENT;

  what = "memory";
  shname = calloc(obj->nsecs + 1, sizeof(*shname));
  relname = calloc(obj->nsecs + 1, sizeof(*relname));
  scnidx = calloc(obj->nsecs + 1, sizeof(*scnidx));
  relas = calloc(obj->nsecs + 1, sizeof(*relas));
  symtab = calloc(nsyms, sizeof(*symtab));
  if (!shname || !relname || !scnidx || !relas || !symtab)
    goto fail;

  /* Section names; .rela<name> for sections with relocations. */
  size_t n_symtab, n_strtab, n_shstrtab, dummy;
  if (strtab_add(&shstr, "", &dummy))
    goto fail;
  for (size_t i = 0; i < obj->nsecs; i++) {
    if (strtab_add(&shstr, obj->secs[i].name, &shname[i]))
      goto fail;
    if (obj->secs[i].nrelocs) {
      char *rn = malloc(strlen(obj->secs[i].name) + 6);
      if (!rn)
        goto fail;
      sprintf(rn, ".rela%s", obj->secs[i].name);
      int e = strtab_add(&shstr, rn, &relname[i]);
      free(rn);
      if (e)
        goto fail;
    }
  }
  if (strtab_add(&shstr, ".symtab", &n_symtab) ||
      strtab_add(&shstr, ".strtab", &n_strtab) ||
      strtab_add(&shstr, ".shstrtab", &n_shstrtab))
    goto fail;

  /* Section indexes: content sections 1..n in order, then relas, then
   * .symtab, .strtab, .shstrtab. */
  size_t next = 1;
  for (size_t i = 0; i < obj->nsecs; i++)
    scnidx[i] = next++;
  for (size_t i = 0; i < obj->nsecs; i++)
    if (obj->secs[i].nrelocs)
      next++;
  size_t symtab_idx = next++, strtab_idx = next++, shstrtab_idx = next++;

  /* Symbol table: null, locals, then globals/weaks (ELF requires locals
   * first; sh_info is the index of the first non-local). */
  size_t k = 1;
  if (strtab_add(&str, "", &dummy))
    goto fail;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < obj->nsyms; i++) {
      struct ow_symbol *y = &obj->syms[i];
      if ((y->bind == STB_LOCAL) != (pass == 0))
        continue;
      size_t nm;
      if (strtab_add(&str, y->name, &nm))
        goto fail;
      Elf64_Sym *es = &symtab[k];
      es->st_name = nm;
      es->st_info = ELF64_ST_INFO(y->bind, y->type);
      es->st_other = ELF64_ST_VISIBILITY(y->vis);
      es->st_shndx = y->sec < 0 ? SHN_UNDEF : scnidx[y->sec];
      es->st_value = y->value;
      es->st_size = y->size;
      y->final_index = k++;
    }
  }
  size_t first_global = 1;
  for (size_t i = 0; i < obj->nsyms; i++)
    if (obj->syms[i].bind == STB_LOCAL)
      first_global++;

  what = "libelf";
  for (size_t i = 0; i < obj->nsecs; i++) {
    struct ow_section *s = &obj->secs[i];
    Elf_Scn *scn = emit_scn(elf, shname[i], s->type, s->flags, s->align,
                            s->bytes, s->size, 0, ELF_T_BYTE);
    if (!scn)
      goto fail;
    if (elf_ndxscn(scn) != scnidx[i])
      goto fail;
  }
  for (size_t i = 0; i < obj->nsecs; i++) {
    struct ow_section *s = &obj->secs[i];
    if (!s->nrelocs)
      continue;
    relas[i] = calloc(s->nrelocs, sizeof(Elf64_Rela));
    if (!relas[i]) {
      what = "memory";
      goto fail;
    }
    for (size_t r = 0; r < s->nrelocs; r++) {
      relas[i][r].r_offset = s->relocs[r].off;
      relas[i][r].r_info = ELF64_R_INFO(
          obj->syms[s->relocs[r].sym].final_index, s->relocs[r].type);
      relas[i][r].r_addend = s->relocs[r].addend;
    }
    Elf_Scn *scn = emit_scn(elf, relname[i], SHT_RELA, SHF_INFO_LINK, 8,
                            relas[i], s->nrelocs * sizeof(Elf64_Rela),
                            sizeof(Elf64_Rela), ELF_T_RELA);
    if (!scn || set_link_info(scn, symtab_idx, scnidx[i]))
      goto fail;
  }
  Elf_Scn *scn = emit_scn(elf, n_symtab, SHT_SYMTAB, 0, 8, symtab,
                          nsyms * sizeof(Elf64_Sym), sizeof(Elf64_Sym),
                          ELF_T_SYM);
  if (!scn || set_link_info(scn, strtab_idx, first_global))
    goto fail;
  if (!emit_scn(elf, n_strtab, SHT_STRTAB, 0, 1, str.buf, str.size, 0,
                ELF_T_BYTE))
    goto fail;
  scn = emit_scn(elf, n_shstrtab, SHT_STRTAB, 0, 1, shstr.buf, shstr.size, 0,
                 ELF_T_BYTE);
  if (!scn || elf_ndxscn(scn) != shstrtab_idx)
    goto fail;
  eh->e_shstrndx = shstrtab_idx;
  elf_flagehdr(elf, ELF_C_SET, ELF_F_DIRTY);
  if (elf_update(elf, ELF_C_WRITE) < 0)
    goto fail;
  rc = 0;
fail:
  if (rc)
    fprintf(stderr, "ompemu-wrap: error: cannot write '%s': %s\n", path,
            strcmp(what, "memory") == 0 ? strerror(ENOMEM)
                                        : elf_errmsg(elf_errno()));
  if (elf)
    elf_end(elf);
  if (relas)
    for (size_t i = 0; i < obj->nsecs; i++)
      free(relas[i]);
  free(relas);
  free(symtab);
  free(shname);
  free(relname);
  free(scnidx);
  free(shstr.buf);
  free(str.buf);
  return rc;
}
