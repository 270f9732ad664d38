/* The emu device's ELF loader (see loader.h): lays an image's PT_LOAD
 * segments out in one block of the device's code arena, relocates it (in
 * relocate.c), protects its pages per p_flags and PT_GNU_RELRO, registers
 * it with GDB and its unwind tables with the unwinder, runs its
 * initialisers, and undoes all of that at unload. */
#include "config.h"
#include "loader.h"
#include "arena.h"
#include "ehframe.h"
#include "gdbjit.h"
#include "loader_internal.h"
#include "tls.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

extern char **environ;

/* PROT_* for the segment flags PF. */
static int pf_to_prot(uint32_t pf) {
  return (pf & PF_R ? PROT_READ : 0) | (pf & PF_W ? PROT_WRITE : 0) |
         (pf & PF_X ? PROT_EXEC : 0);
}

/* Check the PT_LOAD segments of F (inside the file, filesz <= memsz, in
 * ascending order without overlap) and set IMG's span.  CAP bounds it. */
static int layout(struct emu_image *img, const struct elf_file *f,
                  size_t cap) {
  uint64_t lo = UINT64_MAX, hi = 0, prev_end = 0;
  size_t nload = 0;
  for (size_t i = 0; i < f->phnum; i++) {
    const Elf64_Phdr *p = &f->ph[i];
    if (p->p_type != PT_LOAD)
      continue;
    if (p->p_filesz > p->p_memsz)
      return img_fail(img,
                      "segment %zu: p_filesz 0x%lx exceeds p_memsz 0x%lx", i,
                      (unsigned long)p->p_filesz, (unsigned long)p->p_memsz);
    if (!elf_in_range(p->p_offset, p->p_filesz, f->size))
      return img_fail(img,
                      "segment %zu: file bytes [0x%lx, +0x%lx) lie outside "
                      "the file (size 0x%zx)",
                      i, (unsigned long)p->p_offset,
                      (unsigned long)p->p_filesz, f->size);
    if (p->p_memsz > cap || p->p_vaddr > UINT64_MAX - p->p_memsz - EMU_PAGE)
      return img_fail(img,
                      "segment %zu: absurd size 0x%lx at 0x%lx (the code "
                      "range holds 0x%zx bytes)",
                      i, (unsigned long)p->p_memsz, (unsigned long)p->p_vaddr,
                      cap);
    if (nload && p->p_vaddr < prev_end)
      return img_fail(img,
                      "segment %zu at 0x%lx overlaps or precedes the previous "
                      "segment (ending at 0x%lx)",
                      i, (unsigned long)p->p_vaddr, (unsigned long)prev_end);
    prev_end = p->p_vaddr + p->p_memsz;
    if (p->p_vaddr < lo)
      lo = p->p_vaddr;
    if (prev_end > hi)
      hi = prev_end;
    nload++;
  }
  if (!nload)
    return img_fail(img, "no PT_LOAD segment");
  img->vlo = lo & ~(EMU_PAGE - 1);
  img->vhi = (hi + EMU_PAGE - 1) & ~(EMU_PAGE - 1);
  if (img->vhi - img->vlo > cap)
    return img_fail(img,
                    "segments span 0x%lx bytes [0x%lx, 0x%lx), more than the "
                    "code range's capacity 0x%zx",
                    (unsigned long)(img->vhi - img->vlo),
                    (unsigned long)img->vlo, (unsigned long)img->vhi, cap);
  return 0;
}

/* Give the pages [FIRST, FIRST+N) of IMG the protections in IMG->prot plus
 * EXTRA (PROT_READ while loading: the loader reads its tables wherever a
 * malformed image puts them). */
static int protect_pages(struct emu_image *img, size_t first, size_t n,
                         int extra) {
  size_t end = first + n;
  for (size_t p = first; p < end;) {
    size_t q = p + 1;
    while (q < end && img->prot[q] == img->prot[p])
      q++;
    if (mprotect((char *)img->mem + p * EMU_PAGE, (q - p) * EMU_PAGE,
                 img->prot[p] | extra) != 0)
      return img_fail(img,
                      "mprotect of " OMPEMU_PTR " (+0x%zx) failed",
                      OMPEMU_P((char *)img->mem + p * EMU_PAGE),
                      (q - p) * EMU_PAGE);
    p = q;
  }
  return 0;
}

/* Largest TLS block of one image (per thread), and alignment. */
#define EMU_TLS_MAX (16UL << 20)

/* Create IMG's TLS module from F's PT_TLS, if any, its template in the
 * loaded copy. */
static int setup_tls(struct emu_image *img, const struct elf_file *f) {
  for (size_t i = 0; i < f->phnum; i++) {
    const Elf64_Phdr *p = &f->ph[i];
    if (p->p_type != PT_TLS)
      continue;
    if (img->tls)
      return img_fail(img, "more than one PT_TLS");
    if (p->p_filesz > p->p_memsz || p->p_memsz > EMU_TLS_MAX ||
        (p->p_align & (p->p_align - 1)) || p->p_align > EMU_PAGE)
      return img_fail(img,
                      "PT_TLS (segment %zu) has bad sizes: p_filesz 0x%lx, "
                      "p_memsz 0x%lx (at most 0x%lx), p_align 0x%lx",
                      i, (unsigned long)p->p_filesz, (unsigned long)p->p_memsz,
                      EMU_TLS_MAX, (unsigned long)p->p_align);
    if (!img_has(img, p->p_vaddr, p->p_filesz))
      return img_fail(img,
                      "PT_TLS template [0x%lx, +0x%lx) lies outside the image "
                      "span [0x%lx, 0x%lx)",
                      (unsigned long)p->p_vaddr, (unsigned long)p->p_filesz,
                      (unsigned long)img->vlo, (unsigned long)img->vhi);
    img->tls = tls_create(img_ptr(img, p->p_vaddr), p->p_filesz, p->p_memsz,
                          p->p_align);
    if (!img->tls)
      return img_fail(img,
                      "cannot create a thread-local storage module");
    img->tls_memsz = p->p_memsz;
  }
  return 0;
}

/* Copy the segments into the block and set each page's protection to the
 * union of the segments touching it. */
static void map_segments(struct emu_image *img, const struct elf_file *f) {
  for (size_t i = 0; i < f->phnum; i++) {
    const Elf64_Phdr *p = &f->ph[i];
    if (p->p_type != PT_LOAD)
      continue;
    char *dst = img_ptr(img, p->p_vaddr);
    memcpy(dst, f->data + p->p_offset, p->p_filesz);
    memset(dst + p->p_filesz, 0, p->p_memsz - p->p_filesz);
    if (!p->p_memsz)
      continue;
    for (uint64_t pg = (p->p_vaddr - img->vlo) / EMU_PAGE;
         pg <= (p->p_vaddr + p->p_memsz - 1 - img->vlo) / EMU_PAGE; pg++)
      img->prot[pg] |= pf_to_prot(p->p_flags);
  }
}

/* Mark the whole pages of PT_GNU_RELRO read-only (applied with the final
 * protections). */
static int apply_relro(struct emu_image *img, const struct elf_file *f) {
  for (size_t i = 0; i < f->phnum; i++) {
    const Elf64_Phdr *p = &f->ph[i];
    if (p->p_type != PT_GNU_RELRO)
      continue;
    if (!img_has(img, p->p_vaddr, p->p_memsz))
      return img_fail(img,
                      "PT_GNU_RELRO [0x%lx, +0x%lx) lies outside the image "
                      "span [0x%lx, 0x%lx)",
                      (unsigned long)p->p_vaddr, (unsigned long)p->p_memsz,
                      (unsigned long)img->vlo, (unsigned long)img->vhi);
    size_t first = (p->p_vaddr - img->vlo) / EMU_PAGE;
    size_t end = (p->p_vaddr + p->p_memsz - img->vlo) / EMU_PAGE;
    if (end <= first)
      continue;
    for (size_t pg = first; pg < end; pg++)
      img->prot[pg] &= ~PROT_WRITE;
  }
  return 0;
}

typedef void (*initfn)(int, char **, char **);

/* Read function pointer N of the array at VADDR (SIZE bytes) named WHAT
 * into *FN, checking the array and the target; -1 on a bad one. */
static int array_fn(struct emu_image *img, const char *what, uint64_t vaddr,
                    uint64_t size, size_t n, uintptr_t *fn) {
  *fn = img_rd64(img, vaddr + n * 8);
  if (*fn == 0 || *fn == (uintptr_t)-1)
    return 0;
  if (!img_is_code(img, *fn))
    return img_fail(img,
                    "%s[%zu] = " OMPEMU_PTR " is not in the image's code",
                    what, n, OMPEMU_P(*fn));
  return 0;
}

/* Check the init/fini arrays and functions before anything runs. */
static int check_initfini(struct emu_image *img) {
  static const struct { int arr, sz; const char *name; } a[] = {
      {DT_INIT_ARRAY, DT_INIT_ARRAYSZ, "DT_INIT_ARRAY"},
      {DT_FINI_ARRAY, DT_FINI_ARRAYSZ, "DT_FINI_ARRAY"}};
  for (size_t k = 0; k < 2; k++) {
    if (!img->has[a[k].arr])
      continue;
    uint64_t v = img->dyn[a[k].arr], sz = img->dyn[a[k].sz];
    if (sz % 8 || !img_has(img, v, sz) ||
        !img_pages_have(img, v, sz, PROT_READ))
      return img_fail(img,
                      "%s [0x%lx, +0x%lx) is misaligned or outside the image's "
                      "readable span",
                      a[k].name, (unsigned long)v, (unsigned long)sz);
    for (size_t n = 0; n < sz / 8; n++) {
      uintptr_t fn;
      if (array_fn(img, a[k].name, v, sz, n, &fn) != 0)
        return -1;
    }
  }
  static const struct { int tag; const char *name; } s[] = {
      {DT_INIT, "DT_INIT"}, {DT_FINI, "DT_FINI"}};
  for (size_t k = 0; k < 2; k++)
    if (img->has[s[k].tag] && !img_is_code(img, img->base + img->dyn[s[k].tag]))
      return img_fail(img, "%s 0x%lx is not in the image's code",
                      s[k].name, (unsigned long)img->dyn[s[k].tag]);
  return 0;
}

#ifdef EMU_LOADER_FUZZING
#define CALL_INIT(fn) ((void)(fn))
#else
#define CALL_INIT(fn) ((initfn)(fn))(0, NULL, environ)
#endif

/* DT_INIT, then DT_INIT_ARRAY in order (checked by check_initfini). */
static void run_init(struct emu_image *img) {
  if (img->has[DT_INIT])
    CALL_INIT(img->base + img->dyn[DT_INIT]);
  if (img->has[DT_INIT_ARRAY])
    for (size_t n = 0; n < img->dyn[DT_INIT_ARRAYSZ] / 8; n++) {
      uintptr_t fn = img_rd64(img, img->dyn[DT_INIT_ARRAY] + n * 8);
      if (fn != 0 && fn != (uintptr_t)-1)
        CALL_INIT(fn);
    }
  img->inited = 1;
}

/* DT_FINI_ARRAY in reverse, then DT_FINI, if the initialisers ran. */
static void run_fini(struct emu_image *img) {
  if (!img->inited)
    return;
  if (img->has[DT_FINI_ARRAY])
    for (size_t n = img->dyn[DT_FINI_ARRAYSZ] / 8; n-- > 0;) {
      uintptr_t fn = img_rd64(img, img->dyn[DT_FINI_ARRAY] + n * 8);
      if (fn != 0 && fn != (uintptr_t)-1 && img_is_code(img, fn))
        CALL_INIT(fn);
    }
  if (img->has[DT_FINI])
    CALL_INIT(img->base + img->dyn[DT_FINI]);
  img->inited = 0;
}

/* Release everything IMG holds (its code block back to the arena RW).
 * 0, or -1 if the block could not be given back cleanly (reported). */
static int destroy(struct emu_image *img) {
  int rc = 0;
  if (img->gdb)
    gdbjit_unregister(img->gdb);
  ehframe_unregister(img->eh_frame);
  tls_destroy(img->tls);
  if (img->mem) {
    if (mprotect(img->mem, img->memsize, PROT_READ | PROT_WRITE) != 0) {
      ompemu_error("emu", "image %s: mprotect of " OMPEMU_PTR
                   " (+0x%zx) back to read-write failed",
                   img->label, OMPEMU_P(img->mem), img->memsize);
      rc = -1;
    }
    if (arena_free(img->code, img->mem) != 0) /* reported by the arena */
      rc = -1;
  }
  reloc_close_handles(img);
  symtab_free(&img->syms);
  free(img->entries);
  free(img->kernels);
  free(img->reach);
  free(img->needed);
  free(img->prot);
  free(img->label);
  free(img);
  return rc;
}

struct emu_image *loader_load(int dev, struct emu_arena *code,
                              const void *image, size_t size,
                              const char *label) {
  if (!label)
    label = "(unnamed)";
  struct emu_image *img = calloc(1, sizeof *img);
  if (!img) {
    ompemu_error("emu", "image %s rejected: out of host memory", label);
    return NULL;
  }
  img->dev = dev;
  img->code = code;
  img->label = strdup(label);
  struct elf_file f;
  int opened = 0;
  char why[256];
  if (!img->label) {
    ompemu_error("emu", "image %s rejected: out of host memory", label);
    goto fail;
  }
  if (elf_file_open(&f, image, size, why, sizeof why) != 0) {
    img_fail(img, "%s", why);
    goto fail;
  }
  opened = 1;
  if (layout(img, &f, code ? arena_capacity(code) : 0) != 0)
    goto fail;

  img->memsize = img->vhi - img->vlo;
  img->prot = calloc(img->memsize / EMU_PAGE, 1);
  if (!img->prot) {
    img_fail(img, "out of memory");
    goto fail;
  }
  img->mem = arena_alloc(code, img->memsize);
  if (!img->mem) {
    img_fail(img,
             "no room for its 0x%zx bytes in device %d's code range",
             img->memsize, dev);
    goto fail;
  }
  if ((uintptr_t)img->mem % EMU_PAGE) {
    img_fail(img,
             "code block " OMPEMU_PTR " is not page-aligned",
             OMPEMU_P(img->mem));
    goto fail;
  }
  img->base = (uintptr_t)img->mem - img->vlo;
  map_segments(img, &f);
  if (setup_tls(img, &f) != 0)
    goto fail;

  const Elf64_Phdr *dyn = NULL;
  for (size_t i = 0; i < f.phnum; i++)
    if (f.ph[i].p_type == PT_DYNAMIC)
      dyn = &f.ph[i];
  if (!dyn) {
    img_fail(img, "no dynamic section (PT_DYNAMIC)");
    goto fail;
  }
  if (dyn_decode(img, &f, dyn->p_vaddr, dyn->p_memsz) != 0)
    goto fail;
  /* Code becomes executable before relocation (ifunc resolvers run);
   * RELRO and unreadable pages get their final protections after it. */
  size_t npages = img->memsize / EMU_PAGE;
  if (protect_pages(img, 0, npages, PROT_READ) != 0 ||
      reloc_apply(img) != 0 || apply_relro(img, &f) != 0 ||
      syms_build(img, &f) != 0 || kernels_find(img) != 0 ||
      entries_find(img, &f) != 0 || reach_build(img, &f) != 0 ||
      check_initfini(img) != 0 || protect_pages(img, 0, npages, 0) != 0)
    goto fail;

  img->gdb = gdbjit_register(&f, img->base, img->label);
  img->eh_frame = ehframe_register(&f, img->base,
                                   (uintptr_t)img->mem + img->memsize);
  elf_file_close(&f);
  ompemu_trace(1, "emu",
               "device %d: image %s loaded at " OMPEMU_PTR " (+0x%zx), %zu "
               "symbols, %zu entries%s",
               dev, img->label, OMPEMU_P(img->mem), img->memsize,
               img->syms.count, img->nentries,
               img->nkernels ? ", GPU-style kernels (flang)" : "");
  run_init(img);
  return img;

fail: /* img_fail has said why */
  if (opened)
    elf_file_close(&f);
  destroy(img);
  return NULL;
}

int loader_unload(struct emu_image *img) {
  if (!img)
    return 0;
  run_fini(img);
  ompemu_trace(1, "emu", "device %d: image %s unloaded from " OMPEMU_PTR,
               img->dev, img->label, OMPEMU_P(img->mem));
  return destroy(img);
}

void *loader_symbol(const struct emu_image *img, const char *name,
                    size_t *size) {
  const struct emu_sym *s = img ? symtab_find(&img->syms, name) : NULL;
  if (!s)
    return NULL;
  if (size)
    *size = s->size;
  return (void *)s->addr;
}

int loader_contains(const struct emu_image *img, const void *addr) {
  uintptr_t a = (uintptr_t)addr;
  return img && a >= (uintptr_t)img->mem &&
         a - (uintptr_t)img->mem < img->memsize;
}

void loader_writable_runs(const struct emu_image *img,
                          void (*fn)(void *arg, uintptr_t lo, size_t len),
                          void *arg) {
  size_t pages = img->memsize / EMU_PAGE;
  for (size_t p = 0; p < pages;) {
    if (!(img->prot[p] & PROT_WRITE)) {
      p++;
      continue;
    }
    size_t q = p + 1;
    while (q < pages && (img->prot[q] & PROT_WRITE))
      q++;
    fn(arg, (uintptr_t)img->mem + p * EMU_PAGE, (q - p) * EMU_PAGE);
    p = q;
  }
}

uintptr_t loader_base(const struct emu_image *img) {
  return (uintptr_t)img->mem;
}
size_t loader_span(const struct emu_image *img) { return img->memsize; }
const char *loader_label(const struct emu_image *img) { return img->label; }

unsigned loader_thread_needs(const struct emu_image *img) {
  unsigned r = img->uses_libomp ? LOADER_USES_LIBOMP : 0u;
  if (img->tls || img->serializes || img->gpu_style || img->sets_icvs)
    r |= LOADER_THREAD_BOUND;
  return r;
}

unsigned loader_kernel_needs(const struct emu_image *img, const void *entry) {
  unsigned needs;
  if (!img || !reach_find(img, entry, &needs))
    return loader_thread_needs(img);
  if (img->tls || img->serializes || img->gpu_style)
    needs |= LOADER_THREAD_BOUND;
  return needs;
}

const void *loader_kernel_env(const struct emu_image *img, const void *entry) {
  size_t lo = 0, hi = img ? img->nkernels : 0;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uintptr_t e = (uintptr_t)img->kernels[mid].entry;
    if (e == (uintptr_t)entry)
      return img->kernels[mid].env;
    if (e < (uintptr_t)entry)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

const struct __tgt_offload_entry *loader_entries(const struct emu_image *img,
                                                 size_t *count) {
  if (count)
    *count = img->nentries;
  return img->entries;
}
