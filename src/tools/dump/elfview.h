/* A bounds-checked, read-only view of one ELF64 file held in memory, for
 * ompemu-dump: sections by name, symbols, virtual address -> bytes through
 * the program headers, and pointer values as the dynamic loader would see
 * them (R_X86_64_RELATIVE / 64 / GLOB_DAT applied).  Every read checks its
 * range; nothing here trusts an offset or a size from the file. */
#ifndef OMPEMU_DUMP_ELFVIEW_H
#define OMPEMU_DUMP_ELFVIEW_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct dump_notes;

struct ev_rel {
  uint64_t off;
  uint32_t type;
  uint32_t sym;
  int64_t addend;
};

struct ev_addrsym {
  uint64_t addr;
  size_t order; /* .symtab before .dynsym, then table order */
  const char *name;
};

struct ev_symtab {
  Elf_Data *data; /* NULL if absent */
  size_t count;
  size_t strndx;
};

struct ev {
  unsigned char *buf; /* owned copy of the file */
  size_t size;
  Elf *elf;
  GElf_Ehdr eh;
  size_t shnum, shstrndx;
  GElf_Phdr *ph;
  size_t phnum;
  struct ev_rel *rels; /* dynamic relocations, sorted by offset */
  size_t nrels;
  int is_rel;          /* ET_REL: synthetic section addresses */
  struct ev_symtab *relsyms; /* table the relocations' symbols index */
  struct ev_symtab symtab, dynsym;
  /* Lazily built indexes (symbols by address, .dynsym names sorted), so
   * lookups stay O(log n) however many entries a file claims. */
  struct ev_addrsym *byaddr;
  size_t nbyaddr;
  const char **dynnames;
  size_t ndynnames;
  int indexed;
  struct dump_notes *notes;
};

/* Open the LEN bytes at BYTES (copied).  Returns 0, or -1 with *WHY set
 * to a static message when the bytes are not a readable ELF64 file. */
int ev_open(struct ev *v, const void *bytes, size_t len,
            struct dump_notes *notes, const char **why);
void ev_close(struct ev *v);

/* In a relocatable object (ET_REL) sections have no addresses; the view
 * gives section I the address I << EV_REL_SHIFT, applies the object's
 * relocations there, and shifts symbol values the same way, so the rest of
 * the dumper reads an object like a linked file. */
#define EV_REL_SHIFT 40

/* Header of section I with sh_addr as the view sees it; 1 ok, 0 not. */
int ev_shdr(struct ev *v, size_t i, GElf_Shdr *out);

/* Header of the section called NAME (first match); 1 found, 0 not. */
int ev_section(struct ev *v, const char *name, GElf_Shdr *out);
/* File bytes of section SH when they lie inside the file, else NULL. */
const unsigned char *ev_section_bytes(struct ev *v, const GElf_Shdr *sh);

/* LEN bytes at virtual address VADDR into DST (bss reads as zeros).
 * 0, or -1 when any byte is outside the file's loadable contents. */
int ev_read(struct ev *v, uint64_t vaddr, void *dst, size_t len);
/* Is [VADDR, VADDR+LEN) readable? */
int ev_mapped(struct ev *v, uint64_t vaddr, size_t len);

/* The pointer stored at VADDR after dynamic relocation.  *IMPORT is set to
 * the symbol name when it comes from another object (value then 0).
 * 0, or -1 if unreadable. */
int ev_read_ptr(struct ev *v, uint64_t vaddr, uint64_t *val,
                const char **import);

/* A NUL-terminated string at VADDR of at most MAX bytes, newly allocated;
 * NULL when unreadable or unterminated. */
char *ev_string(struct ev *v, uint64_t vaddr, size_t max);

/* Defined symbol NAME from .symtab, else .dynsym; 1 found. */
int ev_symbol(struct ev *v, const char *name, GElf_Sym *out);
/* Name of a defined function/object symbol whose value is ADDR, or NULL. */
const char *ev_symbol_at(struct ev *v, uint64_t addr);
/* Does .dynsym define NAME (what a by-name lookup would find)? */
int ev_dynsym_defines(struct ev *v, const char *name);

/* Name of a symbol of table T at index I, or NULL. */
const char *ev_symname(struct ev *v, struct ev_symtab *t, size_t i,
                       GElf_Sym *out);

#endif
