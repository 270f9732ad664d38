/* What the loader's files share: the loaded image, the helpers that turn
 * checked virtual addresses of the image into pointers and check its
 * pages, and how a refusal is reported.  Only the loader's own files
 * include this.  Dependencies between them go one way: loader.c calls
 * dynamic.c, relocate.c and loader_syms.c, which call dynamic.c; all of
 * them use reject.c and elf_image.c, and nothing calls back into
 * loader.c. */
#ifndef EMU_LOADER_INTERNAL_H
#define EMU_LOADER_INTERNAL_H

#include "elf_image.h"
#include "symbols.h"

#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

struct __tgt_offload_entry;
struct loader_kernel;

/* What one kernel's code can reach: LOADER_USES_LIBOMP and
 * LOADER_THREAD_BOUND (omp_set_* / kmp_set_*) of loader.h. */
struct loader_reach {
  uintptr_t entry;
  unsigned needs;
};

/* Slots of emu_image.dyn: DT_* tags below DT_NUM index directly; the few
 * tags above it that the loader reads get the slots after. */
enum {
  DYN_GNU_HASH = DT_NUM,
  DYN_FLAGS_1,
  DYN_VERSYM,
  DYN_VERNEED,
  DYN_VERNEEDNUM,
  DYN_SLOTS
};

#define EMU_PAGE 4096UL

/* Where relocation stands with a dynamic symbol (emu_image.symstate). */
enum sym_state {
  SYM_UNRESOLVED = 0, /* not looked up yet (calloc'd) */
  SYM_RESOLVED,       /* its value is in symcache */
  SYM_OWN_IFUNC       /* the image's own ifunc: symcache holds the resolver */
};

struct emu_image {
  int dev;
  char *label;
  struct emu_arena *code;
  void *mem;       /* the arena block holding the span */
  size_t memsize;  /* its size (the span) */
  uintptr_t base;  /* load bias: address = base + vaddr */
  uint64_t vlo;    /* page-aligned vaddr span [vlo, vhi) */
  uint64_t vhi;
  unsigned char *prot; /* PROT_* per page of the span */

  uint64_t dyn[DYN_SLOTS];
  unsigned char has[DYN_SLOTS];
  uint64_t *needed; /* DT_NEEDED string offsets */
  size_t nneeded;
  uint64_t nsyms;    /* entries of the dynamic symbol table */
  void **handles;    /* dlopen'ed DT_NEEDED libraries */
  size_t nhandles;
  int handles_open;
  uintptr_t *symcache;      /* per dynamic symbol, during relocation only */
  unsigned char *symstate;  /* enum sym_state per dynamic symbol */

  int serializes;      /* imports __kmpc_serialized_parallel */
  int gpu_style;       /* imports __kmpc_target_init (flang's kernels) */
  int uses_libomp;     /* imports libomp calls the device runtime lacks */
  int sets_icvs;       /* imports omp_set_* / kmp_set_* (ICVs, locks) */
  struct loader_reach *reach; /* per kernel, sorted by entry (reach.c) */
  size_t nreach;
  struct loader_kernel *kernels; /* GPU-style kernels, sorted by entry */
  size_t nkernels;
  struct emu_tls *tls; /* PT_TLS module, or NULL */
  uint64_t tls_memsz;

  struct emu_symtab syms;
  struct __tgt_offload_entry *entries; /* aligned copy, malloc'd */
  size_t nentries;
  void *gdb; /* gdbjit registration */
  void *eh_frame; /* ehframe registration */
  int inited;
};

/* Report why IMG cannot be loaded, as one error naming the image
 * ("emu: error: image LABEL rejected: ..."), and return -1, so callers can
 * `return img_fail(img, ...)`.  The first refusal ends the load, so a
 * rejected image gets exactly one message (reject.c). */
int img_fail(const struct emu_image *img, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* 1 if [VADDR, VADDR+LEN) lies inside IMG's span. */
static inline int img_has(const struct emu_image *img, uint64_t vaddr,
                          uint64_t len) {
  return vaddr >= img->vlo && elf_in_range(vaddr - img->vlo, len,
                                           img->vhi - img->vlo);
}

static inline void *img_ptr(const struct emu_image *img, uint64_t vaddr) {
  return (void *)(img->base + vaddr);
}

static inline uint64_t img_rd64(const struct emu_image *img, uint64_t vaddr) {
  uint64_t v;
  memcpy(&v, img_ptr(img, vaddr), sizeof v);
  return v;
}

static inline uint32_t img_rd32(const struct emu_image *img, uint64_t vaddr) {
  uint32_t v;
  memcpy(&v, img_ptr(img, vaddr), sizeof v);
  return v;
}

/* PROT_* of the page holding VADDR (which must lie in the span). */
static inline int img_page_prot(const struct emu_image *img, uint64_t vaddr) {
  return img->prot[(vaddr - img->vlo) / EMU_PAGE];
}

/* 1 if every page of [VADDR, VADDR+LEN) (inside the span) has all of PROT. */
static inline int img_pages_have(const struct emu_image *img, uint64_t vaddr,
                                 uint64_t len, int prot) {
  if (!len)
    return 1;
  for (uint64_t p = (vaddr - img->vlo) / EMU_PAGE;
       p <= (vaddr + len - 1 - img->vlo) / EMU_PAGE; p++)
    if ((img->prot[p] & prot) != prot)
      return 0;
  return 1;
}

/* 1 if ADDR (an absolute address) is in an executable page of IMG. */
static inline int img_is_code(const struct emu_image *img, uintptr_t addr) {
  if (addr < img->base)
    return 0;
  uint64_t v = addr - img->base;
  return img_has(img, v, 1) && (img_page_prot(img, v) & PROT_EXEC);
}

/* reach.c: what each kernel of IMG reaches (after relocation and
 * entries_find).  Always 0: without its tables (no .symtab, no memory)
 * every kernel keeps the image-wide answer. */
int reach_build(struct emu_image *img, const struct elf_file *f);

/* 1 with *NEEDS set if reach_build knows the kernel at ENTRY; else 0. */
int reach_find(const struct emu_image *img, const void *entry,
               unsigned *needs);

/* dynamic.c: decode PT_DYNAMIC (at VADDR, LEN bytes) into IMG->dyn, size the
 * dynamic symbol table, check the string and symbol tables. */
int dyn_decode(struct emu_image *img, const struct elf_file *f,
               uint64_t vaddr, uint64_t len);

/* The NUL-terminated string at OFF in DT_STRTAB, or NULL if out of range. */
const char *dyn_string(const struct emu_image *img, uint64_t off);

/* Dynamic symbol IDX (< IMG->nsyms) copied into *SYM. */
void dyn_symbol(const struct emu_image *img, uint64_t idx, Elf64_Sym *sym);

/* relocate.c: apply DT_RELA and DT_JMPREL (IRELATIVE and ifunc binds in a
 * second pass, once code is executable).  -1 after img_fail. */
int reloc_apply(struct emu_image *img);

/* Close the libraries reloc_apply opened. */
void reloc_close_handles(struct emu_image *img);

/* loader_syms.c: fill IMG->syms from dynsym and .symtab, and find the
 * entries of omp_offloading_entries. */
int syms_build(struct emu_image *img, const struct elf_file *f);
/* After syms_build: IMG's GPU-style kernels (loader_kernel), sorted. */
int kernels_find(struct emu_image *img);
int entries_find(struct emu_image *img, const struct elf_file *f);

#endif
