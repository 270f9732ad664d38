/* Unwind tables of loaded images (see ehframe.h).  libgcc's unwinder looks
 * for a frame's FDE first among the objects registered with
 * __register_frame, then in the dynamic linker's list of loaded objects,
 * which never holds an emu image. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include "config.h"
#include "ehframe.h"
#include "elf_image.h"
#include "trace.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

typedef void (*frame_fn)(void *begin);

void *ehframe_register(const struct elf_file *f, uintptr_t base,
                       uintptr_t span_end) {
  const Elf64_Shdr *s = elf_file_section(f, ".eh_frame");
  if (!s || s->sh_size < 4)
    return NULL;
  uintptr_t begin = base + s->sh_addr, end = begin + s->sh_size;
  uint32_t last;
  if (end < begin || end > span_end)
    return NULL;
  memcpy(&last, (const void *)(end - 4), 4);
  if (last != 0) /* libgcc walks the section up to its zero terminator */
    return NULL;
#ifdef EMU_LOADER_FUZZING
  return NULL;
#else
  frame_fn reg = (frame_fn)dlsym(RTLD_DEFAULT, "__register_frame");
  frame_fn dereg = (frame_fn)dlsym(RTLD_DEFAULT, "__deregister_frame");
  if (!reg || !dereg) {
    ompemu_trace(2, "emu", "no __register_frame in the process: exceptions "
                 "thrown in the image at " OMPEMU_PTR " cannot be caught",
                 OMPEMU_P(base));
    return NULL;
  }
  reg((void *)begin);
  return (void *)begin;
#endif
}

void ehframe_unregister(void *handle) {
  if (!handle)
    return;
  frame_fn dereg = (frame_fn)dlsym(RTLD_DEFAULT, "__deregister_frame");
  if (dereg)
    dereg(handle);
}
