/* The emu device's own ELF loader: validates x86-64 ET_DYN images, maps
 * them into a device's code arena, relocates them, resolves undefined
 * symbols (device runtime first, then the process), runs init/fini arrays,
 * and looks symbols up by name (dynsym, then symtab).  Architecture details
 * live in reloc_<arch>.c.  Thread safety: load/unload of one device are
 * serialised by the caller; lookups on a loaded image are read-only. */
#ifndef EMU_LOADER_H
#define EMU_LOADER_H

#include <stddef.h>
#include <stdint.h>

struct emu_arena;
struct emu_image;

/* 1 if IMAGE[0..SIZE) is an image the emu device can load (ELF64, ET_DYN,
 * the host's e_machine); 0 otherwise, with the reason in WHY. */
int loader_check(const void *image, size_t size, char *why, size_t whylen);

/* Load a copy of IMAGE for device DEV into CODE.  LABEL names the image in
 * messages.  NULL on any error, with one error "emu: error: image LABEL
 * rejected: ..." reported and nothing left mapped. */
struct emu_image *loader_load(int dev, struct emu_arena *code,
                              const void *image, size_t size,
                              const char *label);

/* Run fini_array / DT_FINI, release the code memory, free IMG.  0, or -1
 * if the code memory could not be given back cleanly (reported). */
int loader_unload(struct emu_image *img);

/* Address of the symbol NAME defined in IMG (dynsym first, then symtab, so
 * internal symbols such as clang's ctor/dtor functions are found), and its
 * st_size in *SIZE if SIZE is not NULL.  NULL if IMG does not define it. */
void *loader_symbol(const struct emu_image *img, const char *name,
                    size_t *size);

/* 1 if ADDR lies in IMG's mapped span.  loader_base is where that span
 * starts (the image's lowest PT_LOAD page; its vaddr 0 for clang and gcc
 * images) and loader_span its size in bytes. */
int loader_contains(const struct emu_image *img, const void *addr);
uintptr_t loader_base(const struct emu_image *img);
size_t loader_span(const struct emu_image *img);
const char *loader_label(const struct emu_image *img);

/* The writable pages of IMG's span (its data and bss, where a kernel can
 * leave a value for a later one), a run of them at a time: FN(ARG, LO,
 * LEN) for each. */
void loader_writable_runs(const struct emu_image *img,
                          void (*fn)(void *arg, uintptr_t lo, size_t len),
                          void *arg);

/* A GPU-style kernel of an image (flang 22's, docs/abi-clang22.md section
 * 7.2): its entry address and its KernelEnvironment, the object the image
 * defines as "<kernel>_kernel_environment". */
struct loader_kernel {
  const void *entry;
  const void *env;
};

/* The KernelEnvironment of the GPU-style kernel at ENTRY in IMG; NULL when
 * ENTRY is no such kernel (a clang kernel, or not a kernel at all).  A
 * binary search: cheap enough for every launch. */
const void *loader_kernel_env(const struct emu_image *img, const void *entry);

/* What a kernel of IMG can tell about the thread that runs it
 * (exec_launch_here): LOADER_THREAD_BOUND when it has thread-local
 * variables, is GPU-style, uses fresh_root.c's stand-ins or imports
 * omp_set_* / kmp_set_* (it would change the thread's libomp state);
 * LOADER_USES_LIBOMP when it calls into libomp (its ICVs and levels). */
#define LOADER_THREAD_BOUND 1u
#define LOADER_USES_LIBOMP 2u
unsigned loader_thread_needs(const struct emu_image *img);

/* The same for the kernel at ENTRY alone: LOADER_USES_LIBOMP and the
 * omp_set_* part of LOADER_THREAD_BOUND only when its own code, or code it
 * calls, calls those (reach.c); the image-wide answer for anything else. */
unsigned loader_kernel_needs(const struct emu_image *img, const void *entry);

/* What a call to the imported function NAME tells about the thread:
 * LOADER_USES_LIBOMP for libomp's entry points the device runtime does not
 * replace, LOADER_THREAD_BOUND as well for omp_set_* / kmp_set_*. */
unsigned loader_import_needs(const char *name);

/* Device entries found in IMG's omp_offloading_entries section, or in the
 * 56-byte llvm_offload_entries of clang 22 and flang 22 (in the 32-byte
 * form, their data word as reserved): device addresses and names, for tools
 * and traces; *COUNT gets their number. */
const struct __tgt_offload_entry *loader_entries(const struct emu_image *img,
                                                 size_t *count);

#endif
