/* Registration of a loaded image's unwind tables (.eh_frame) with the
 * process's unwinder, so exceptions thrown in device code are caught there
 * (clang++ images; the dynamic linker does this for dlopen'ed objects, and
 * the emu loader is not one). */
#ifndef EMU_EHFRAME_H
#define EMU_EHFRAME_H

#include <stdint.h>

struct elf_file;

/* Register the .eh_frame section of F (rebased by BASE, already mapped,
 * ending with a zero terminator, at most SPAN_END) with libgcc's
 * __register_frame.  Returns the handle for ehframe_unregister, or NULL
 * when there is nothing to register or no unwinder that takes it (the
 * image then loads anyway; an exception thrown there terminates). */
void *ehframe_register(const struct elf_file *f, uintptr_t base,
                       uintptr_t span_end);
void ehframe_unregister(void *handle);

#endif
