/* The by-name symbol table (see symbols.h). */
#include "config.h"
#include "symbols.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a over LEN bytes of NAME, never 0 (0 marks empty slots). */
static uint32_t name_hash(const char *name, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)name[i];
    h *= 16777619u;
  }
  return h ? h : 1;
}

void symtab_init(struct emu_symtab *t) { memset(t, 0, sizeof *t); }

void symtab_free(struct emu_symtab *t) {
  free(t->slots);
  free(t->pool);
  memset(t, 0, sizeof *t);
}

/* The slot holding NAME (LEN bytes, hash H), or the empty slot where it
 * would go. */
static struct emu_sym *probe(const struct emu_symtab *t, uint32_t h,
                             const char *name, size_t len) {
  size_t mask = t->cap - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    struct emu_sym *s = &t->slots[i];
    if (s->hash == 0)
      return s;
    if (s->hash == h) {
      const char *n = t->pool + s->name_off;
      if (strncmp(n, name, len) == 0 && n[len] == '\0')
        return s;
    }
  }
}

/* Double the slot array (or create it) and rehash. */
static int grow(struct emu_symtab *t) {
  size_t ncap = t->cap ? t->cap * 2 : 64;
  struct emu_sym *old = t->slots;
  size_t ocap = t->cap;
  t->slots = calloc(ncap, sizeof *t->slots);
  if (!t->slots) {
    t->slots = old;
    return -1;
  }
  t->cap = ncap;
  for (size_t i = 0; i < ocap; i++) {
    if (old[i].hash == 0)
      continue;
    size_t mask = ncap - 1, j = old[i].hash & mask;
    while (t->slots[j].hash)
      j = (j + 1) & mask;
    t->slots[j] = old[i];
  }
  free(old);
  return 0;
}

int symtab_add(struct emu_symtab *t, const char *name, size_t len,
               uintptr_t addr, size_t size) {
  if (len >= UINT32_MAX)
    return -1;
  if ((t->count + 1) * 2 > t->cap && grow(t) != 0)
    return -1;
  uint32_t h = name_hash(name, len);
  struct emu_sym *s = probe(t, h, name, len);
  if (s->hash)
    return 0;
  if (t->pool_len + len + 1 > t->pool_cap || t->pool_len + len + 1 > UINT32_MAX) {
    size_t ncap = t->pool_cap ? t->pool_cap * 2 : 1024;
    while (ncap < t->pool_len + len + 1)
      ncap *= 2;
    if (ncap > UINT32_MAX)
      return -1;
    char *np = realloc(t->pool, ncap);
    if (!np)
      return -1;
    t->pool = np;
    t->pool_cap = ncap;
  }
  memcpy(t->pool + t->pool_len, name, len);
  t->pool[t->pool_len + len] = '\0';
  s->hash = h;
  s->name_off = (uint32_t)t->pool_len;
  s->addr = addr;
  s->size = size;
  t->pool_len += len + 1;
  t->count++;
  return 1;
}

const struct emu_sym *symtab_find(const struct emu_symtab *t,
                                  const char *name) {
  if (!t->cap || !name)
    return NULL;
  size_t len = strlen(name);
  struct emu_sym *s = probe(t, name_hash(name, len), name, len);
  return s->hash ? s : NULL;
}
