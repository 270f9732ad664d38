/* A loaded image's names: the by-name symbol table (dynsym first, then the
 * section-header .symtab, where clang's internal ctor/dtor functions live),
 * its GPU-style kernels (flang's, known by their "_kernel_environment"
 * objects) and the device entries of its omp_offloading_entries section. */
#include "config.h"
#include "loader_internal.h"
#include "loader.h"

#include <ompemu/abi.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Add symbol S named NAME (from WHAT, index IDX) if it is a readable
 * definition inside the span. */
static int add_sym(struct emu_image *img, const Elf64_Sym *s, const char *name,
                   const char *what, size_t idx) {
  int type = ELF64_ST_TYPE(s->st_info);
  if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS || !*name ||
      type == STT_SECTION || type == STT_FILE || type == STT_TLS)
    return 0;
  uint64_t len = s->st_size ? s->st_size : 1;
  if (!img_has(img, s->st_value, len) ||
      !img_pages_have(img, s->st_value, len, PROT_READ))
    return 0; /* e.g. _end; never hand out an unreadable address */
  uintptr_t addr = (uintptr_t)img_ptr(img, s->st_value);
  /* An ifunc's name stands for the function its resolver picks, as dlsym
   * has it. */
  if (type == STT_GNU_IFUNC) {
    if (!img_is_code(img, addr))
      return 0;
#ifdef EMU_LOADER_FUZZING
    return 0;
#else
    addr = (uintptr_t)((void *(*)(void))addr)();
#endif
  }
  if (symtab_add(&img->syms, name, strlen(name), addr, s->st_size) < 0)
    return img_fail(img, "out of memory adding %s symbol %zu",
                    what, idx);
  return 0;
}

/* Symbols of the SHT_SYMTAB section SH of F. */
static int add_symtab(struct emu_image *img, const struct elf_file *f,
                      const Elf64_Shdr *sh) {
  if (sh->sh_entsize != sizeof(Elf64_Sym))
    return img_fail(img, ".symtab sh_entsize %lu, expected %zu",
                    (unsigned long)sh->sh_entsize, sizeof(Elf64_Sym));
  if (sh->sh_link == 0 || sh->sh_link >= f->shnum ||
      f->sh[sh->sh_link].sh_type != SHT_STRTAB)
    return img_fail(img,
                    ".symtab sh_link %u is not a string table section",
                    sh->sh_link);
  const Elf64_Shdr *st = &f->sh[sh->sh_link];
  const char *str = (const char *)f->data + st->sh_offset;
  size_t n = sh->sh_size / sizeof(Elf64_Sym);
  for (size_t i = 1; i < n; i++) {
    Elf64_Sym s;
    memcpy(&s, f->data + sh->sh_offset + i * sizeof s, sizeof s);
    if (s.st_name >= st->sh_size ||
        !memchr(str + s.st_name, '\0', st->sh_size - s.st_name))
      return img_fail(img,
                      ".symtab symbol %zu: name offset 0x%x outside its "
                      "string table (size 0x%lx)",
                      i, s.st_name, (unsigned long)st->sh_size);
    if (add_sym(img, &s, str + s.st_name, ".symtab", i) != 0)
      return -1;
  }
  return 0;
}

int syms_build(struct emu_image *img, const struct elf_file *f) {
  symtab_init(&img->syms);
  if (img->has[DT_SYMTAB])
    for (uint64_t i = 1; i < img->nsyms; i++) {
      Elf64_Sym s;
      dyn_symbol(img, i, &s);
      const char *name = dyn_string(img, s.st_name);
      if (!name)
        return img_fail(img,
                        "dynamic symbol %lu: name offset 0x%x outside the "
                        "string table (size 0x%lx)",
                        (unsigned long)i, s.st_name,
                        (unsigned long)img->dyn[DT_STRSZ]);
      if (add_sym(img, &s, name, "dynamic", i) != 0)
        return -1;
    }
  for (size_t i = 1; i < f->shnum; i++)
    if (f->sh[i].sh_type == SHT_SYMTAB && add_symtab(img, f, &f->sh[i]) != 0)
      return -1;
  return 0;
}

static int kernel_cmp(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const struct loader_kernel *)a)->entry;
  uintptr_t y = (uintptr_t)((const struct loader_kernel *)b)->entry;
  return x < y ? -1 : x > y;
}

int kernels_find(struct emu_image *img) {
  static const char suffix[] = "_kernel_environment";
  const size_t slen = sizeof suffix - 1;
  const struct emu_symtab *t = &img->syms;
  for (size_t i = 0; i < t->cap; i++) {
    const struct emu_sym *env = &t->slots[i];
    if (!env->hash)
      continue;
    const char *name = symtab_name(t, env);
    size_t len = strlen(name);
    if (len <= slen || strcmp(name + len - slen, suffix) != 0)
      continue;
    char *kname = strndup(name, len - slen);
    if (!kname)
      return img_fail(img, "out of memory");
    const struct emu_sym *k = symtab_find(t, kname);
    free(kname);
    if (!k || !img_is_code(img, k->addr))
      continue; /* an object of that name, but no kernel beside it */
    if (img->nkernels % 16 == 0) {
      struct loader_kernel *n = realloc(
          img->kernels, (img->nkernels + 16) * sizeof *img->kernels);
      if (!n)
        return img_fail(img, "out of memory");
      img->kernels = n;
    }
    img->kernels[img->nkernels++] =
        (struct loader_kernel){(const void *)k->addr, (const void *)env->addr};
  }
  if (img->nkernels > 1)
    qsort(img->kernels, img->nkernels, sizeof *img->kernels, kernel_cmp);
  return 0;
}

/* 1 if a NUL-terminated string starts at absolute address P inside IMG's
 * readable pages. */
static int readable_string(const struct emu_image *img, uintptr_t p) {
  if (p < img->base)
    return 0;
  for (uint64_t v = p - img->base; img_has(img, v, 1);) {
    if (!(img_page_prot(img, v) & PROT_READ))
      return 0;
    uint64_t page_end = (v & ~(EMU_PAGE - 1)) + EMU_PAGE;
    if (memchr(img_ptr(img, v), '\0', page_end - v))
      return 1;
    v = page_end;
  }
  return 0;
}

/* The 56-byte entries of clang 22 and flang 22 (docs/abi-clang22.md
 * section 3.1), in section llvm_offload_entries. */
#define NEW_ENTRY_SIZE 56

/* The readable section NAME of F inside IMG's span whose size is a multiple
 * of ENTSIZE: 0 with *S set (NULL if F has no such section), or -1. */
static int entries_section(struct emu_image *img, const struct elf_file *f,
                           const char *name, size_t entsize,
                           const Elf64_Shdr **s) {
  *s = elf_file_section(f, name);
  if (!*s)
    return 0;
  if ((*s)->sh_size % entsize != 0)
    return img_fail(img,
                    "%s size 0x%lx is not a multiple of the entry size %zu",
                    name, (unsigned long)(*s)->sh_size, entsize);
  if (!img_has(img, (*s)->sh_addr, (*s)->sh_size) ||
      !img_pages_have(img, (*s)->sh_addr, (*s)->sh_size, PROT_READ))
    return img_fail(img,
                    "%s [0x%lx, +0x%lx) lies outside the image's readable "
                    "span [0x%lx, 0x%lx)",
                    name, (unsigned long)(*s)->sh_addr,
                    (unsigned long)(*s)->sh_size, (unsigned long)img->vlo,
                    (unsigned long)img->vhi);
  return 0;
}

/* Copy the (already relocated) entries of the 56-byte table S into IMG's
 * entry list in the 32-byte form: address, name, size, flags, and the data
 * word (the requires bits) as reserved. */
static int entries_from_new(struct emu_image *img, const Elf64_Shdr *s) {
  img->nentries = s->sh_size / NEW_ENTRY_SIZE;
  if (!img->nentries)
    return 0;
  img->entries = calloc(img->nentries, sizeof *img->entries);
  if (!img->entries)
    return img_fail(img, "out of memory");
  for (size_t i = 0; i < img->nentries; i++) {
    const unsigned char *e = img_ptr(img, s->sh_addr + i * NEW_ENTRY_SIZE);
    uint32_t flags;
    uint64_t data;
    memcpy(&img->entries[i].addr, e + 16, sizeof(void *));
    memcpy(&img->entries[i].name, e + 24, sizeof(char *));
    memcpy(&img->entries[i].size, e + 32, sizeof(size_t));
    memcpy(&flags, e + 12, sizeof flags);
    memcpy(&data, e + 40, sizeof data);
    img->entries[i].flags = (int32_t)flags;
    img->entries[i].reserved = (int32_t)data;
  }
  return 0;
}

int entries_find(struct emu_image *img, const struct elf_file *f) {
  const Elf64_Shdr *s;
  if (entries_section(img, f, "omp_offloading_entries",
                      sizeof(__tgt_offload_entry), &s) != 0)
    return -1;
  if (s) {
    /* clang 14 aligns the section to 1 byte: keep an aligned copy of the
     * (already relocated) entries. */
    img->nentries = s->sh_size / sizeof(__tgt_offload_entry);
    if (!img->nentries)
      return 0;
    img->entries = malloc(s->sh_size);
    if (!img->entries)
      return img_fail(img, "out of memory");
    memcpy(img->entries, img_ptr(img, s->sh_addr), s->sh_size);
  } else {
    if (entries_section(img, f, "llvm_offload_entries", NEW_ENTRY_SIZE, &s) !=
            0 ||
        (s && entries_from_new(img, s) != 0))
      return -1;
  }
  for (size_t i = 0; i < img->nentries; i++)
    if (!readable_string(img, (uintptr_t)img->entries[i].name))
      return img_fail(img,
                      "offload entry %zu: name pointer " "0x%016lx is not a "
                      "string inside the image",
                      i, (unsigned long)(uintptr_t)img->entries[i].name);
  return 0;
}
