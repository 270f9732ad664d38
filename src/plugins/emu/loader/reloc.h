/* Architecture-neutral relocation kinds for the emu loader.  Each
 * architecture maps its own relocation numbers to these kinds in
 * reloc_<arch>.c, so loader.c stays architecture-free. */
#ifndef EMU_RELOC_H
#define EMU_RELOC_H

#include <stdint.h>

enum emu_reloc_kind {
  RK_NONE,      /* nothing to do */
  RK_RELATIVE,  /* B + A */
  RK_SYMBOLIC,  /* S + A, full word */
  RK_GOT,       /* S + A into a GOT slot */
  RK_PLT,       /* S + A into a PLT slot (bound now) */
  RK_IRELATIVE, /* resolver (B + A) called, its result stored */
  RK_COPY,      /* executables only: refused */
  RK_DTPMOD,    /* TLS module id (dynamic model) */
  RK_DTPOFF,    /* offset in the module's TLS block (dynamic model) */
  RK_TLS,       /* other thread-local storage models: refused */
  RK_UNKNOWN    /* anything else: refused */
};

/* The host's ELF machine, and its name for messages. */
extern const uint16_t reloc_machine;
extern const char reloc_machine_name[];

/* Kind of the relocation number TYPE. */
enum emu_reloc_kind reloc_kind(uint32_t type);

/* Name of relocation TYPE ("R_X86_64_64"), or "unknown". */
const char *reloc_name(uint32_t type);

#endif
