/* Sizes of the symbols a device image defines, read from its ELF symbol
 * tables: the device's size of each declare-target variable, which the
 * registration (global_sizes.c) and ompemu-dump compare with the host
 * entries' sizes.  Never writes to the image; no locks, no reporting. */
#ifndef OMPEMU_RT_IMAGE_SYMBOLS_H
#define OMPEMU_RT_IMAGE_SYMBOLS_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

#define RT_NO_SYMBOL UINT64_MAX

/* SIZES[i] gets the st_size of the symbol named NAMES[i] that the ELF
 * image [START, START+LEN) defines (.dynsym first, then .symtab), or
 * RT_NO_SYMBOL when it defines none; FUNC[i] (FUNC may be NULL) whether
 * that symbol is a function (a kernel's entry, not a variable's).  0; -1
 * when libelf cannot read the image (every size RT_NO_SYMBOL). */
RT_HIDDEN int rt_image_symbol_sizes(const void *start, size_t len,
                                    const char *const *names, size_t n,
                                    uint64_t *sizes, unsigned char *func);

#endif
