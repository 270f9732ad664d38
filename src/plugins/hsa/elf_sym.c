/* Reading small constants straight from a code object's ELF symbol table:
 * clang 14 describes each kernel with <kernel>_exec_mode (i8) and
 * <kernel>_wg_size (u16) globals, which HSA does not necessarily expose as
 * executable symbols (LLVM 14's amdgpu plugin reads them from the image
 * too).  Everything is bounds-checked: a malformed image yields "absent". */
#include "config.h"
#include "hsa_plugin.h"

#include <elf.h>
#include <string.h>

/* Copy SIZE bytes of symbol NAME's initial value out of image IMG into OUT;
 * returns 0, or -1 when the symbol is absent or the image malformed. */
int hsa_elf_symbol_value(const __tgt_device_image *img, const char *name,
                         void *out, size_t size) {
  const unsigned char *b = img->ImageStart;
  size_t len = (size_t)((const char *)img->ImageEnd - (const char *)b);
  Elf64_Ehdr eh;
  if (len < sizeof eh)
    return -1;
  memcpy(&eh, b, sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > len ||
      (size_t)eh.e_shnum * sizeof(Elf64_Shdr) > len - eh.e_shoff)
    return -1;
  const unsigned char *shbase = b + eh.e_shoff;
  for (unsigned s = 0; s < eh.e_shnum; s++) {
    Elf64_Shdr sh, strsh;
    memcpy(&sh, shbase + s * sizeof sh, sizeof sh);
    if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
        sh.sh_entsize != sizeof(Elf64_Sym) || sh.sh_link >= eh.e_shnum ||
        sh.sh_offset > len || sh.sh_size > len - sh.sh_offset)
      continue;
    memcpy(&strsh, shbase + sh.sh_link * sizeof strsh, sizeof strsh);
    if (strsh.sh_offset > len || strsh.sh_size > len - strsh.sh_offset)
      continue;
    const char *strtab = (const char *)b + strsh.sh_offset;
    size_t nsym = sh.sh_size / sizeof(Elf64_Sym);
    for (size_t i = 0; i < nsym; i++) {
      Elf64_Sym sym;
      memcpy(&sym, b + sh.sh_offset + i * sizeof sym, sizeof sym);
      if (sym.st_name >= strsh.sh_size ||
          strnlen(strtab + sym.st_name, strsh.sh_size - sym.st_name) ==
              strsh.sh_size - sym.st_name ||
          strcmp(strtab + sym.st_name, name) != 0)
        continue;
      if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= eh.e_shnum ||
          sym.st_size < size)
        return -1;
      Elf64_Shdr data;
      memcpy(&data, shbase + sym.st_shndx * sizeof data, sizeof data);
      if (data.sh_type == SHT_NOBITS || sym.st_value < data.sh_addr ||
          sym.st_value - data.sh_addr > data.sh_size ||
          size > data.sh_size - (sym.st_value - data.sh_addr))
        return -1;
      uint64_t off = data.sh_offset + (sym.st_value - data.sh_addr);
      if (off > len || size > len - off)
        return -1;
      memcpy(out, b + off, size);
      return 0;
    }
  }
  return -1;
}
