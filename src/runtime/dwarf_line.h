/* A small reader of DWARF line tables (.debug_line, versions 2 to 5, with
 * .debug_line_str, and the compilation directory from .debug_info for
 * versions below 5) over libelf: which source file, line and column an
 * address of a loaded object belongs to.  Used to name the call site of a
 * device memory routine in its messages (callsite.c). */
#ifndef OMPEMU_DWARF_LINE_H
#define OMPEMU_DWARF_LINE_H

#include "rt.h"

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

struct dwl_loc {
  /* The source file as the line table names it, joined with its directory
   * and (when relative) the compilation directory. */
  char file[1024];
  unsigned line;   /* 1-based */
  unsigned column; /* 1-based; 0 when the compiler gave none */
};

/* Looks ADDR (an address in the object's own terms: the runtime address
 * less the load bias) up in the line table of E.  1: found, in *LOC; 0: E
 * has no line table or no row covers ADDR; -1: the line table is
 * malformed or of an unknown version, with the reason in ERR (ERRLEN
 * bytes). */
RT_HIDDEN int dwl_lookup_elf(Elf *e, uint64_t addr, struct dwl_loc *loc,
                             char *err, size_t errlen);
/* The same for the ELF file at PATH; -1 also when it cannot be read. */
RT_HIDDEN int dwl_lookup(const char *path, uint64_t addr, struct dwl_loc *loc,
                         char *err, size_t errlen);

#endif
