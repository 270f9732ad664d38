/* GDB's JIT interface (GDB manual, "JIT Compilation Interface"): GDB puts a
 * breakpoint in __jit_debug_register_code and, when it is hit, reads the
 * in-memory object file that __jit_debug_descriptor's relevant_entry
 * names.  GDB takes the object's addresses as they are, so the copy handed
 * over has them rebased to where the loader put the image, and its DWARF
 * sections disabled (their addresses are not rebased and would mislead). */
#include "config.h"
#include "gdbjit.h"
#include "elf_image.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { JIT_NOACTION = 0, JIT_REGISTER_FN = 1, JIT_UNREGISTER_FN = 2 };

struct jit_code_entry {
  struct jit_code_entry *next_entry;
  struct jit_code_entry *prev_entry;
  const char *symfile_addr;
  uint64_t symfile_size;
};

struct jit_descriptor {
  uint32_t version;
  uint32_t action_flag;
  struct jit_code_entry *relevant_entry;
  struct jit_code_entry *first_entry;
};

/* Exported (plugin.map) so GDB finds them by name in the plugin. */
__attribute__((visibility("default"), noinline, used)) void
__jit_debug_register_code(void) {
  __asm__ volatile("" ::: "memory");
}

__attribute__((visibility("default"), used)) struct jit_descriptor
    __jit_debug_descriptor = {1, JIT_NOACTION, NULL, NULL};

/* Protects __jit_debug_descriptor's list and its action fields. */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;

/* Rebase the defined symbols of the symbol table section SH in COPY. */
static void rebase_symbols(char *copy, size_t size, const Elf64_Shdr *sh,
                           uintptr_t base) {
  if (sh->sh_entsize != sizeof(Elf64_Sym) ||
      !elf_in_range(sh->sh_offset, sh->sh_size, size))
    return;
  for (uint64_t off = sh->sh_offset + sizeof(Elf64_Sym);
       off + sizeof(Elf64_Sym) <= sh->sh_offset + sh->sh_size;
       off += sizeof(Elf64_Sym)) {
    Elf64_Sym s;
    memcpy(&s, copy + off, sizeof s);
    if (s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
      continue;
    s.st_value += base;
    memcpy(copy + off, &s, sizeof s);
  }
}

void *gdbjit_register(const struct elf_file *f, uintptr_t base,
                      const char *label) {
  (void)label;
  struct jit_code_entry *e = calloc(1, sizeof *e);
  char *copy = malloc(f->size);
  if (!e || !copy) {
    free(e);
    free(copy);
    return NULL;
  }
  memcpy(copy, f->data, f->size);

  Elf64_Ehdr eh = f->eh;
  if (eh.e_entry)
    eh.e_entry += base;
  memcpy(copy, &eh, sizeof eh);
  for (size_t i = 0; i < f->phnum; i++) {
    Elf64_Phdr p = f->ph[i];
    p.p_vaddr += base;
    p.p_paddr += base;
    memcpy(copy + eh.e_phoff + i * sizeof p, &p, sizeof p);
  }
  for (size_t i = 1; i < f->shnum; i++) {
    Elf64_Shdr s = f->sh[i];
    if (s.sh_flags & SHF_ALLOC)
      s.sh_addr += base;
    if (s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM)
      rebase_symbols(copy, f->size, &s, base);
    const char *name = elf_file_secname(f, &f->sh[i]);
    if (strncmp(name, ".debug", 6) == 0 || strncmp(name, ".zdebug", 7) == 0)
      s.sh_type = SHT_NULL;
    memcpy(copy + eh.e_shoff + i * sizeof s, &s, sizeof s);
  }
  /* The dynamic section's addresses stay file-relative: GDB reads the
   * symbol tables, not DT_* entries. */
  e->symfile_addr = copy;
  e->symfile_size = f->size;

  pthread_mutex_lock(&jit_lock);
  e->next_entry = __jit_debug_descriptor.first_entry;
  if (e->next_entry)
    e->next_entry->prev_entry = e;
  __jit_debug_descriptor.first_entry = e;
  __jit_debug_descriptor.relevant_entry = e;
  __jit_debug_descriptor.action_flag = JIT_REGISTER_FN;
  __jit_debug_register_code();
  __jit_debug_descriptor.action_flag = JIT_NOACTION;
  pthread_mutex_unlock(&jit_lock);
  return e;
}

void gdbjit_unregister(void *handle) {
  struct jit_code_entry *e = handle;
  if (!e)
    return;
  pthread_mutex_lock(&jit_lock);
  if (e->prev_entry)
    e->prev_entry->next_entry = e->next_entry;
  else
    __jit_debug_descriptor.first_entry = e->next_entry;
  if (e->next_entry)
    e->next_entry->prev_entry = e->prev_entry;
  __jit_debug_descriptor.relevant_entry = e;
  __jit_debug_descriptor.action_flag = JIT_UNREGISTER_FN;
  __jit_debug_register_code();
  __jit_debug_descriptor.action_flag = JIT_NOACTION;
  __jit_debug_descriptor.relevant_entry = NULL;
  pthread_mutex_unlock(&jit_lock);
  free((void *)e->symfile_addr);
  free(e);
}
