/* ELF64 image validation (loader_check) and the bounds-checked header view
 * the loader works from.  Nothing here trusts a number read from the file
 * before checking it against the file's size. */
#include "config.h"
#include "elf_image.h"
#include "loader.h"
#include "reloc.h"

#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int why_fail(char *why, size_t whylen, const char *fmt, ...) {
  if (why && whylen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, whylen, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static pthread_once_t libelf_once = PTHREAD_ONCE_INIT;
/* libelf wants its version set once per process. */
static void libelf_init(void) { (void)elf_version(EV_CURRENT); }

/* Let libelf identify IMAGE as a 64-bit ELF object: a second opinion on the
 * identification bytes before our own checks. */
static int libelf_identify(const void *image, size_t size, char *why,
                           size_t whylen) {
  pthread_once(&libelf_once, libelf_init);
  Elf *e = elf_memory((char *)image, size);
  if (!e)
    return why_fail(why, whylen, "libelf cannot read it: %s", elf_errmsg(-1));
  int rc = 0;
  if (elf_kind(e) != ELF_K_ELF)
    rc = why_fail(why, whylen, "not an ELF object (libelf kind %d)",
                  (int)elf_kind(e));
  else if (gelf_getclass(e) != ELFCLASS64)
    rc = why_fail(why, whylen, "not ELF64 (class %d)", gelf_getclass(e));
  else if (!elf64_getehdr(e))
    rc = why_fail(why, whylen, "libelf cannot read the ELF header: %s",
                  elf_errmsg(-1));
  elf_end(e);
  return rc;
}

/* Header checks that need no table: identification, type, machine and the
 * entry sizes of the header tables. */
static int check_ehdr(const Elf64_Ehdr *eh, size_t size, char *why,
                      size_t whylen) {
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
    return why_fail(why, whylen, "no ELF magic at offset 0");
  if (eh->e_ident[EI_CLASS] != ELFCLASS64)
    return why_fail(why, whylen, "not ELF64 (EI_CLASS %u)",
                    eh->e_ident[EI_CLASS]);
  if (eh->e_ident[EI_DATA] != ELFDATA2LSB)
    return why_fail(why, whylen, "not little-endian (EI_DATA %u)",
                    eh->e_ident[EI_DATA]);
  if (eh->e_ident[EI_VERSION] != EV_CURRENT || eh->e_version != EV_CURRENT)
    return why_fail(why, whylen, "ELF version %u/%u, expected %u",
                    eh->e_ident[EI_VERSION], eh->e_version, EV_CURRENT);
  if (eh->e_type != ET_DYN)
    return why_fail(why, whylen, "e_type %u is not ET_DYN (shared object)",
                    eh->e_type);
  if (eh->e_machine != reloc_machine)
    return why_fail(why, whylen, "e_machine %u is not the host's %s",
                    eh->e_machine, reloc_machine_name);
  if (eh->e_ehsize != sizeof(Elf64_Ehdr))
    return why_fail(why, whylen, "e_ehsize %u, expected %zu", eh->e_ehsize,
                    sizeof(Elf64_Ehdr));
  if (eh->e_phentsize != sizeof(Elf64_Phdr))
    return why_fail(why, whylen, "e_phentsize %u, expected %zu",
                    eh->e_phentsize, sizeof(Elf64_Phdr));
  if (eh->e_phnum == 0 || eh->e_phnum == PN_XNUM)
    return why_fail(why, whylen, "e_phnum %u: no usable program headers",
                    eh->e_phnum);
  if (!elf_in_range(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr),
                    size))
    return why_fail(why, whylen,
                    "program headers at e_phoff 0x%lx (%u x %zu bytes) lie "
                    "outside the file (size 0x%zx)",
                    (unsigned long)eh->e_phoff, eh->e_phnum,
                    sizeof(Elf64_Phdr), size);
  if (eh->e_shoff != 0) {
    if (eh->e_shentsize != sizeof(Elf64_Shdr))
      return why_fail(why, whylen, "e_shentsize %u, expected %zu",
                      eh->e_shentsize, sizeof(Elf64_Shdr));
    if (eh->e_shnum == 0)
      return why_fail(why, whylen,
                      "e_shnum 0 with e_shoff 0x%lx (extended section "
                      "numbering is not supported)",
                      (unsigned long)eh->e_shoff);
    if (!elf_in_range(eh->e_shoff,
                      (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size))
      return why_fail(why, whylen,
                      "section headers at e_shoff 0x%lx (%u x %zu bytes) lie "
                      "outside the file (size 0x%zx)",
                      (unsigned long)eh->e_shoff, eh->e_shnum,
                      sizeof(Elf64_Shdr), size);
    if (eh->e_shstrndx != SHN_UNDEF && eh->e_shstrndx >= eh->e_shnum)
      return why_fail(why, whylen, "e_shstrndx %u beyond e_shnum %u",
                      eh->e_shstrndx, eh->e_shnum);
  }
  return 0;
}

int elf_file_open(struct elf_file *f, const void *image, size_t size,
                  char *why, size_t whylen) {
  memset(f, 0, sizeof *f);
  if (!image)
    return why_fail(why, whylen, "no image (NULL)");
  if (size < sizeof(Elf64_Ehdr))
    return why_fail(why, whylen,
                    "file of 0x%zx bytes is shorter than an ELF64 header "
                    "(0x%zx)",
                    size, sizeof(Elf64_Ehdr));
  f->data = image;
  f->size = size;
  memcpy(&f->eh, image, sizeof f->eh);
  if (check_ehdr(&f->eh, size, why, whylen) != 0)
    return -1;
  if (libelf_identify(image, size, why, whylen) != 0)
    return -1;

  f->phnum = f->eh.e_phnum;
  f->ph = malloc(f->phnum * sizeof *f->ph);
  if (!f->ph)
    return why_fail(why, whylen, "out of memory");
  memcpy(f->ph, f->data + f->eh.e_phoff, f->phnum * sizeof *f->ph);

  if (f->eh.e_shoff != 0) {
    f->shnum = f->eh.e_shnum;
    f->sh = malloc(f->shnum * sizeof *f->sh);
    if (!f->sh) {
      elf_file_close(f);
      return why_fail(why, whylen, "out of memory");
    }
    memcpy(f->sh, f->data + f->eh.e_shoff, f->shnum * sizeof *f->sh);
    for (size_t i = 1; i < f->shnum; i++) {
      const Elf64_Shdr *s = &f->sh[i];
      if (s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL &&
          !elf_in_range(s->sh_offset, s->sh_size, size)) {
        why_fail(why, whylen,
                 "section %zu at offset 0x%lx size 0x%lx lies outside the "
                 "file (size 0x%zx)",
                 i, (unsigned long)s->sh_offset, (unsigned long)s->sh_size,
                 size);
        elf_file_close(f);
        return -1;
      }
    }
    if (f->eh.e_shstrndx != SHN_UNDEF) {
      const Elf64_Shdr *s = &f->sh[f->eh.e_shstrndx];
      if (s->sh_type != SHT_STRTAB) {
        why_fail(why, whylen, "section name table (section %u) has type %u",
                 f->eh.e_shstrndx, s->sh_type);
        elf_file_close(f);
        return -1;
      }
      f->shstr = (const char *)f->data + s->sh_offset;
      f->shstrsz = s->sh_size;
    }
  }
  return 0;
}

void elf_file_close(struct elf_file *f) {
  free(f->ph);
  free(f->sh);
  f->ph = NULL;
  f->sh = NULL;
  f->phnum = f->shnum = 0;
}

const char *elf_file_secname(const struct elf_file *f, const Elf64_Shdr *s) {
  if (!f->shstr || s->sh_name >= f->shstrsz)
    return "";
  const char *n = f->shstr + s->sh_name;
  if (!memchr(n, '\0', f->shstrsz - s->sh_name))
    return "";
  return n;
}

const Elf64_Shdr *elf_file_section(const struct elf_file *f,
                                   const char *name) {
  for (size_t i = 1; i < f->shnum; i++)
    if (strcmp(elf_file_secname(f, &f->sh[i]), name) == 0)
      return &f->sh[i];
  return NULL;
}

int loader_check(const void *image, size_t size, char *why, size_t whylen) {
  struct elf_file f;
  if (elf_file_open(&f, image, size, why, whylen) != 0)
    return 0;
  elf_file_close(&f);
  if (why && whylen)
    why[0] = '\0';
  return 1;
}
