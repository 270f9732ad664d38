/* x86-64 relocation numbers mapped to the loader's neutral kinds. */
#include "config.h"
#include "reloc.h"

#include <elf.h>

const uint16_t reloc_machine = EM_X86_64;
const char reloc_machine_name[] = "x86-64 (EM_X86_64)";

enum emu_reloc_kind reloc_kind(uint32_t type) {
  switch (type) {
  case R_X86_64_NONE:
    return RK_NONE;
  case R_X86_64_RELATIVE:
    return RK_RELATIVE;
  case R_X86_64_64:
    return RK_SYMBOLIC;
  case R_X86_64_GLOB_DAT:
    return RK_GOT;
  case R_X86_64_JUMP_SLOT:
    return RK_PLT;
  case R_X86_64_IRELATIVE:
    return RK_IRELATIVE;
  case R_X86_64_COPY:
    return RK_COPY;
  case R_X86_64_DTPMOD64:
    return RK_DTPMOD;
  case R_X86_64_DTPOFF64:
    return RK_DTPOFF;
  case R_X86_64_TPOFF64:
  case R_X86_64_TLSDESC:
    return RK_TLS;
  default:
    return RK_UNKNOWN;
  }
}

const char *reloc_name(uint32_t type) {
  switch (type) {
  case R_X86_64_NONE: return "R_X86_64_NONE";
  case R_X86_64_64: return "R_X86_64_64";
  case R_X86_64_PC32: return "R_X86_64_PC32";
  case R_X86_64_GOT32: return "R_X86_64_GOT32";
  case R_X86_64_PLT32: return "R_X86_64_PLT32";
  case R_X86_64_COPY: return "R_X86_64_COPY";
  case R_X86_64_GLOB_DAT: return "R_X86_64_GLOB_DAT";
  case R_X86_64_JUMP_SLOT: return "R_X86_64_JUMP_SLOT";
  case R_X86_64_RELATIVE: return "R_X86_64_RELATIVE";
  case R_X86_64_32: return "R_X86_64_32";
  case R_X86_64_32S: return "R_X86_64_32S";
  case R_X86_64_DTPMOD64: return "R_X86_64_DTPMOD64";
  case R_X86_64_DTPOFF64: return "R_X86_64_DTPOFF64";
  case R_X86_64_TPOFF64: return "R_X86_64_TPOFF64";
  case R_X86_64_TLSDESC: return "R_X86_64_TLSDESC";
  case R_X86_64_IRELATIVE: return "R_X86_64_IRELATIVE";
  default: return "unknown";
  }
}
