/* A small writer for ELF64 x86-64 relocatable objects (ET_REL) built on
 * libelf: sections with their bytes, symbols, RELA relocations.  Callers
 * name symbols by the handle ow_symbol returns; the writer orders the symbol
 * table (locals first) and creates .rela.*, .symtab, .strtab and .shstrtab
 * when the object is written.  Single-threaded; one object per struct. */
#ifndef OMPEMU_WRAP_ELFWRITER_H
#define OMPEMU_WRAP_ELFWRITER_H

#include <stddef.h>
#include <stdint.h>

struct ow_obj;

/* A new, empty object, or NULL when out of memory. */
struct ow_obj *ow_new(void);
void ow_free(struct ow_obj *obj);

/* Add a section; returns its handle (>= 0) or -1.  NAME is copied. */
int ow_section(struct ow_obj *obj, const char *name, uint32_t type,
               uint64_t flags, uint64_t align);

/* Append LEN bytes of DATA (NULL: zeros) to section SEC after padding the
 * section to ALIGN; stores the offset of the first byte in *OFF.  The bytes
 * are copied.  Returns 0 or -1. */
int ow_append(struct ow_obj *obj, int sec, const void *data, size_t len,
              uint64_t align, uint64_t *off);

/* Overwrite LEN bytes at OFF of section SEC (already appended).  0 or -1. */
int ow_patch(struct ow_obj *obj, int sec, uint64_t off, const void *data,
             size_t len);

/* Add a symbol; SEC -1 means undefined.  VIS is STV_*.  Returns a handle
 * (>= 0) or -1.  NAME is copied. */
int ow_symbol(struct ow_obj *obj, const char *name, int bind, int type,
              int vis, int sec, uint64_t value, uint64_t size);

/* The STT_SECTION symbol of SEC (created on first use), or -1. */
int ow_section_symbol(struct ow_obj *obj, int sec);

/* Add a RELA relocation at OFF of section SEC against symbol SYM. */
int ow_reloc(struct ow_obj *obj, int sec, uint64_t off, uint32_t type,
             int sym, int64_t addend);

/* Current size of section SEC. */
uint64_t ow_section_size(const struct ow_obj *obj, int sec);

/* Write the object to the open file descriptor FD.  On error, prints a
 * message naming PATH to stderr and returns -1. */
int ow_write(struct ow_obj *obj, int fd, const char *path);

#endif
