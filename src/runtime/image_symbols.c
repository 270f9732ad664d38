/* Symbol sizes of a device image (image_symbols.h). */
#include "config.h"
#include "image_symbols.h"

#include <gelf.h>
#include <libelf.h>
#include <string.h>

/* Fill the sizes still unknown from the symbol table section SCN. */
static void from_table(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh,
                       const char *const *names, size_t n, uint64_t *sizes,
                       unsigned char *func) {
  Elf_Data *data = elf_getdata(scn, NULL);
  if (!data || !sh->sh_entsize)
    return;
  size_t count = sh->sh_size / sh->sh_entsize;
  for (size_t k = 1; k < count; k++) {
    GElf_Sym s;
    if (!gelf_getsym(data, (int)k, &s) || s.st_shndx == SHN_UNDEF)
      continue;
    const char *name = elf_strptr(e, sh->sh_link, s.st_name);
    if (!name || !*name)
      continue;
    for (size_t i = 0; i < n; i++)
      if (sizes[i] == RT_NO_SYMBOL && names[i] && !strcmp(names[i], name)) {
        sizes[i] = s.st_size;
        if (func)
          func[i] = GELF_ST_TYPE(s.st_info) == STT_FUNC;
      }
  }
}

int rt_image_symbol_sizes(const void *start, size_t len,
                          const char *const *names, size_t n,
                          uint64_t *sizes, unsigned char *func) {
  for (size_t i = 0; i < n; i++) {
    sizes[i] = RT_NO_SYMBOL;
    if (func)
      func[i] = 0;
  }
  if (elf_version(EV_CURRENT) == EV_NONE)
    return -1;
  Elf *e = elf_memory((char *)start, len);
  if (!e)
    return -1;
  if (elf_kind(e) != ELF_K_ELF) {
    elf_end(e);
    return -1;
  }
  static const Elf64_Word order[] = {SHT_DYNSYM, SHT_SYMTAB};
  for (size_t o = 0; o < 2; o++) {
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn))) {
      GElf_Shdr sh;
      if (gelf_getshdr(scn, &sh) && sh.sh_type == order[o])
        from_table(e, scn, &sh, names, n, sizes, func);
    }
  }
  elf_end(e);
  return 0;
}
