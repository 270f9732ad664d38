/* Bounds-checked view of an ELF64 image in memory (the file as the host
 * binary embeds it): header, program headers and section headers, copied
 * into aligned storage, every offset and size checked against the file. */
#ifndef EMU_ELF_IMAGE_H
#define EMU_ELF_IMAGE_H

#include <elf.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file {
  const unsigned char *data; /* the image; not owned */
  size_t size;
  Elf64_Ehdr eh;
  Elf64_Phdr *ph; /* eh.e_phnum entries, malloc'd */
  size_t phnum;
  Elf64_Shdr *sh; /* section headers, malloc'd; NULL if none */
  size_t shnum;
  const char *shstr; /* section name table inside DATA, or NULL */
  size_t shstrsz;
};

/* Check IMAGE[0..SIZE) (ELF64, little-endian, ET_DYN, the host's machine,
 * header tables and sections inside the file) and fill F.  0 on success;
 * -1 with the reason in WHY, and nothing to close. */
int elf_file_open(struct elf_file *f, const void *image, size_t size,
                  char *why, size_t whylen);
void elf_file_close(struct elf_file *f);

/* Name of section S ("" if it has none or the name is out of range). */
const char *elf_file_secname(const struct elf_file *f, const Elf64_Shdr *s);

/* First section named NAME, or NULL. */
const Elf64_Shdr *elf_file_section(const struct elf_file *f, const char *name);

/* 1 if [OFF, OFF+LEN) lies in [0, LIMIT) without overflow. */
static inline int elf_in_range(uint64_t off, uint64_t len, uint64_t limit) {
  return off <= limit && len <= limit - off;
}

/* snprintf into WHY; returns -1 so callers can `return why_fail(...)`. */
int why_fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
