/* Registration of loaded images with GDB's JIT interface, so a debugger
 * attached to the process sees device functions by name.  Thread safety:
 * the descriptor list is protected by one mutex of gdbjit.c. */
#ifndef EMU_GDBJIT_H
#define EMU_GDBJIT_H

#include <stdint.h>

struct elf_file;

/* Register a copy of the file F whose section, segment and symbol addresses
 * are rebased by BASE (the load bias).  Returns a handle for
 * gdbjit_unregister, or NULL (out of memory; not an error for loading). */
void *gdbjit_register(const struct elf_file *f, uintptr_t base,
                      const char *label);
void gdbjit_unregister(void *handle);

#endif
