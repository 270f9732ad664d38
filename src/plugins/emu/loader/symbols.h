/* By-name symbol table of a loaded image: an open-addressing hash table
 * over copied names, filled once at load (dynsym first, then symtab) and
 * read-only afterwards, so lookups need no lock. */
#ifndef EMU_SYMBOLS_H
#define EMU_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct emu_sym {
  uint32_t hash;     /* 0 marks an empty slot */
  uint32_t name_off; /* into the table's name pool */
  uintptr_t addr;
  size_t size;
};

struct emu_symtab {
  struct emu_sym *slots; /* cap slots, cap a power of two */
  size_t cap, count;
  char *pool; /* NUL-terminated names */
  size_t pool_len, pool_cap;
};

void symtab_init(struct emu_symtab *t);
void symtab_free(struct emu_symtab *t);

/* Add NAME (LEN bytes, no NUL needed) unless it is already there: 1 added,
 * 0 already present (the first definition wins), -1 out of memory. */
int symtab_add(struct emu_symtab *t, const char *name, size_t len,
               uintptr_t addr, size_t size);

/* The name of entry S (a filled slot of T). */
static inline const char *symtab_name(const struct emu_symtab *t,
                                      const struct emu_sym *s) {
  return t->pool + s->name_off;
}

/* Entry for NAME, or NULL. */
const struct emu_sym *symtab_find(const struct emu_symtab *t,
                                  const char *name);

#endif
