/* Thread-local storage of loaded images, dynamic model only: each image
 * with PT_TLS gets a module whose per-thread blocks are allocated on first
 * use by the loader's own __tls_get_addr (images bind theirs to it), copied
 * from the image's TLS template.  Initial-exec and TLS-descriptor
 * relocations are refused by the loader.  Thread safety: each module's
 * block list is protected by the module's mutex. */
#ifndef EMU_TLS_H
#define EMU_TLS_H

#include <stddef.h>
#include <stdint.h>

struct emu_tls;

/* A module for the template INIT (FILESZ bytes, then zeros up to MEMSZ),
 * blocks aligned to ALIGN.  NULL if out of memory or no key is left. */
struct emu_tls *tls_create(const void *init, size_t filesz, size_t memsz,
                           size_t align);

/* Free the module and every thread's block of it. */
void tls_destroy(struct emu_tls *t);

/* The value R_*_DTPMOD64 stores for T. */
uint64_t tls_module_id(const struct emu_tls *t);

/* The loader's __tls_get_addr. */
void *tls_get_addr_fn(void);

#endif
