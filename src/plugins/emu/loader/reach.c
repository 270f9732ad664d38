/* What each kernel of an image can reach (loader_kernel_needs): whether
 * its code, or code it calls, calls into libomp or changes libomp's ICVs.
 * The image-wide answer (loader_thread_needs) would keep every kernel of
 * an image with one teams kernel off the calling thread whenever a host
 * parallel region launches; a plain kernel in such an image can run there.
 *
 * How, for each kernel, over the image's code as loaded:
 * - every function is bounded by its symbol (.symtab and .dynsym, st_size);
 *   without a .symtab (a stripped image, whose local functions have no
 *   bounds) every kernel gets the image-wide answer;
 * - a function's bytes are read as 32-bit PC-relative displacements at
 *   every offset: a displacement that lands on the start of a function
 *   (call, jmp, jcc, or an address taken with lea), on a PLT stub or on a
 *   GOT slot names what the code can reach.  Every real direct reference
 *   is such a displacement, so none is missed; a displacement read across
 *   an instruction boundary can only add a reference that is not there;
 * - an indirect call or jump through a register or memory (0xff /2../5,
 *   except through a GOT slot) could go anywhere: the image-wide answer;
 *   so does a reference to a function whose size is unknown.
 * The answer errs towards "reaches libomp", which keeps the kernel on a
 * worker, as before. */
#include "config.h"
#include "devicertl.h"
#include "loader_internal.h"
#include "loader.h"
#include "reloc.h"

#include "trace.h"

#include <ompemu/abi.h>
#include <stdlib.h>

/* More code than this scanned for one image and the remaining kernels get
 * the image-wide answer: loading stays linear in the image's size. */
#define SCAN_BUDGET (64u << 20)

struct range {
  uint64_t lo, hi; /* vaddr [lo, hi); hi == lo for an unknown size */
};

struct slot {
  uint64_t vaddr;  /* a GOT slot (or any word) a relocation fills */
  unsigned needs;  /* an import's (loader_import_needs) */
  uint64_t target; /* the image's own function it holds, or 0 */
};

struct reach {
  const struct emu_image *img;
  unsigned all; /* the image-wide answer */
  struct range *fn;
  size_t nfn;
  struct slot *slot;
  size_t nslot;
  struct range plt[3];
  size_t nplt;
  unsigned char *seen; /* per function, for one kernel */
  size_t *work;
  size_t budget;
};

static int by_lo(const void *a, const void *b) {
  const struct range *x = a, *y = b;
  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  return x->hi < y->hi ? -1 : x->hi > y->hi; /* unknown sizes first */
}

static int by_vaddr(const void *a, const void *b) {
  const struct slot *x = a, *y = b;
  return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

unsigned loader_import_needs(const char *name) {
  unsigned r = 0;
  if ((!strncmp(name, "__kmpc_", 7) || !strncmp(name, "omp_", 4) ||
       !strncmp(name, "kmp_", 4)) && !devicertl_lookup(name))
    r |= LOADER_USES_LIBOMP;
  if (!strncmp(name, "omp_set_", 8) || !strncmp(name, "kmp_set_", 8))
    r |= LOADER_THREAD_BOUND;
  return r;
}

/* ARR (N used of *CAP elements of SIZE bytes) with room for one more:
 * ARR itself, a larger copy, or NULL out of memory (ARR still valid). */
static void *room(void *arr, size_t n, size_t *cap, size_t size) {
  if (n < *cap)
    return arr;
  size_t c = *cap ? 2 * *cap : 64;
  void *p = realloc(arr, c * size);
  if (p)
    *cap = c;
  return p;
}

static int add_fn(struct reach *r, size_t *cap, const Elf64_Sym *s) {
  int type = ELF64_ST_TYPE(s->st_info);
  if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS ||
      (type != STT_FUNC && type != STT_NOTYPE))
    return 0;
  const struct emu_image *img = r->img;
  uint64_t len = s->st_size ? s->st_size : 1;
  if (!img_has(img, s->st_value, len) ||
      !img_is_code(img, (uintptr_t)img_ptr(img, s->st_value)))
    return 0;
  if (s->st_size && !img_pages_have(img, s->st_value, s->st_size, PROT_READ))
    return 0;
  struct range *fn = room(r->fn, r->nfn, cap, sizeof *fn);
  if (!fn)
    return -1;
  r->fn = fn;
  r->fn[r->nfn++] = (struct range){s->st_value, s->st_value + s->st_size};
  return 0;
}

/* The functions of .symtab and .dynsym, sorted; 1 if the image has no
 * .symtab, -1 out of memory. */
static int collect_functions(struct reach *r, const struct elf_file *f) {
  const struct emu_image *img = r->img;
  size_t cap = 0;
  int symtab = 0;
  for (size_t i = 1; i < f->shnum; i++) {
    const Elf64_Shdr *sh = &f->sh[i];
    if (sh->sh_type != SHT_SYMTAB || sh->sh_entsize != sizeof(Elf64_Sym))
      continue;
    symtab = 1;
    for (size_t k = 1; k < sh->sh_size / sizeof(Elf64_Sym); k++) {
      Elf64_Sym s;
      memcpy(&s, f->data + sh->sh_offset + k * sizeof s, sizeof s);
      if (add_fn(r, &cap, &s) != 0)
        return -1;
    }
  }
  if (!symtab)
    return 1;
  for (uint64_t i = 1; img->has[DT_SYMTAB] && i < img->nsyms; i++) {
    Elf64_Sym s;
    dyn_symbol(img, i, &s);
    if (add_fn(r, &cap, &s) != 0)
      return -1;
  }
  if (r->nfn)
    qsort(r->fn, r->nfn, sizeof *r->fn, by_lo);
  return 0;
}

static int add_slot(struct reach *r, size_t *cap, struct slot sl) {
  struct slot *sp = room(r->slot, r->nslot, cap, sizeof *sp);
  if (!sp)
    return -1;
  r->slot = sp;
  r->slot[r->nslot++] = sl;
  return 0;
}

/* The words the relocations of [VADDR, +SIZE) fill: an import (what
 * calling it needs), or the image's own function (a PLT slot bound to a
 * definition, a GOT entry of a local function's address). */
static int add_slots(struct reach *r, size_t *cap, uint64_t vaddr,
                     uint64_t size) {
  const struct emu_image *img = r->img;
  if (!img_has(img, vaddr, size))
    return 0; /* relocate.c has refused such a table already */
  for (size_t i = 0; i < size / sizeof(Elf64_Rela); i++) {
    Elf64_Rela rel;
    memcpy(&rel, img_ptr(img, vaddr + i * sizeof rel), sizeof rel);
    uint64_t idx = ELF64_R_SYM(rel.r_info);
    enum emu_reloc_kind k = reloc_kind(ELF64_R_TYPE(rel.r_info));
    struct slot sl = {rel.r_offset, 0, 0};
    if (k == RK_RELATIVE || k == RK_IRELATIVE) {
      sl.target = (uint64_t)rel.r_addend;
    } else if (idx && idx < img->nsyms) {
      Elf64_Sym s;
      dyn_symbol(img, idx, &s);
      if (s.st_shndx == SHN_UNDEF) {
        const char *name = dyn_string(img, s.st_name);
        sl.needs = name ? loader_import_needs(name) : 0;
      } else {
        sl.target = s.st_value + (uint64_t)rel.r_addend;
      }
    } else {
      continue;
    }
    if (add_slot(r, cap, sl) != 0)
      return -1;
  }
  return 0;
}

static int collect_slots(struct reach *r) {
  const struct emu_image *img = r->img;
  size_t cap = 0;
  if ((img->has[DT_RELA] &&
       add_slots(r, &cap, img->dyn[DT_RELA], img->dyn[DT_RELASZ]) != 0) ||
      (img->has[DT_JMPREL] &&
       add_slots(r, &cap, img->dyn[DT_JMPREL], img->dyn[DT_PLTRELSZ]) != 0))
    return -1;
  if (r->nslot)
    qsort(r->slot, r->nslot, sizeof *r->slot, by_vaddr);
  return 0;
}

static void collect_plt(struct reach *r, const struct elf_file *f) {
  static const char *const names[] = {".plt", ".plt.sec", ".plt.got"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const Elf64_Shdr *s = elf_file_section(f, names[i]);
    if (s && s->sh_size && img_has(r->img, s->sh_addr, s->sh_size))
      r->plt[r->nplt++] = (struct range){s->sh_addr, s->sh_addr + s->sh_size};
  }
}

/* The slot at V, or NULL. */
static const struct slot *slot_at(const struct reach *r, uint64_t v) {
  size_t lo = 0, hi = r->nslot;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->slot[mid].vaddr == v)
      return &r->slot[mid];
    if (r->slot[mid].vaddr < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* Index of the first function starting at V, or r->nfn. */
static size_t fn_at(const struct reach *r, uint64_t v) {
  size_t lo = 0, hi = r->nfn;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->fn[mid].lo < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < r->nfn && r->fn[lo].lo == v ? lo : r->nfn;
}

/* The slot a PLT stub at V jumps through (its `jmp *disp(%rip)`), or
 * NULL. */
static const struct slot *plt_slot(const struct reach *r,
                                   const struct range *p, uint64_t v) {
  const unsigned char *b = img_ptr(r->img, 0);
  for (uint64_t a = v; a + 6 <= p->hi && a < v + 16; a++)
    if (b[a] == 0xff && b[a + 1] == 0x25) {
      int32_t d;
      memcpy(&d, b + a + 2, sizeof d);
      return slot_at(r, a + 6 + (uint64_t)(int64_t)d);
    }
  return NULL;
}

/* Queue the function starting at vaddr V (all of them, if symbols share
 * the address); 0 if there is none. */
static int queue_fn(struct reach *r, uint64_t v, size_t *nwork) {
  size_t j = fn_at(r, v);
  if (j == r->nfn)
    return 0;
  for (; j < r->nfn && r->fn[j].lo == v; j++)
    if (!r->seen[j]) {
      r->seen[j] = 1;
      r->work[(*nwork)++] = j;
    }
  return 1;
}

/* What reaching slot SL means: its import's needs, or its own function
 * queued (a word holding a data address is data); the image's answer for
 * code nothing bounds. */
static unsigned via_slot(struct reach *r, const struct slot *sl,
                         size_t *nwork) {
  if (sl->target &&
      img_is_code(r->img, (uintptr_t)img_ptr(r->img, sl->target)) &&
      !queue_fn(r, sl->target, nwork))
    return r->all; /* code, but no function starts there */
  return sl->needs;
}

/* Scan function I; queue the functions it references.  Returns what it
 * reaches directly. */
static unsigned scan(struct reach *r, size_t i, size_t *nwork) {
  const struct range *fn = &r->fn[i];
  if (fn->hi == fn->lo || fn->hi - fn->lo > r->budget)
    return r->all;
  r->budget -= fn->hi - fn->lo;
  const unsigned char *b = img_ptr(r->img, 0);
  unsigned needs = 0;
  for (uint64_t a = fn->lo; a < fn->hi && needs != r->all; a++) {
    if (b[a] == 0xff && a + 1 < fn->hi) {
      unsigned m = b[a + 1], reg = (m >> 3) & 7, mod = m >> 6;
      int rip = mod == 0 && (m & 7) == 5;
      if (reg >= 2 && reg <= 5 && !(mod == 3 && (reg == 3 || reg == 5))) {
        /* An indirect call or jump: through a slot a relocation fills is
         * known; through a register or any other memory it could go
         * anywhere. */
        int32_t d;
        if (!rip || (reg != 2 && reg != 4) || a + 6 > fn->hi)
          return r->all;
        memcpy(&d, b + a + 2, sizeof d);
        const struct slot *sl = slot_at(r, a + 6 + (uint64_t)(int64_t)d);
        if (!sl)
          return r->all;
      }
    }
    if (a + 4 > fn->hi)
      continue;
    int32_t d;
    memcpy(&d, b + a, sizeof d);
    uint64_t v = a + 4 + (uint64_t)(int64_t)d;
    const struct slot *sl = slot_at(r, v);
    for (size_t k = 0; !sl && k < r->nplt; k++)
      if (v >= r->plt[k].lo && v < r->plt[k].hi)
        sl = plt_slot(r, &r->plt[k], v);
    if (sl)
      needs |= via_slot(r, sl, nwork);
    else
      queue_fn(r, v, nwork);
  }
  return needs;
}

/* What the kernel at vaddr ENTRY reaches. */
static unsigned kernel_reach(struct reach *r, uint64_t entry) {
  size_t first = fn_at(r, entry);
  if (first == r->nfn)
    return r->all;
  memset(r->seen, 0, r->nfn);
  size_t nwork = 0;
  for (size_t j = first; j < r->nfn && r->fn[j].lo == entry; j++) {
    r->seen[j] = 1;
    r->work[nwork++] = j;
  }
  unsigned needs = 0;
  while (nwork && needs != r->all)
    needs |= scan(r, r->work[--nwork], &nwork);
  return needs;
}

static int by_entry(const void *a, const void *b) {
  uintptr_t x = ((const struct loader_reach *)a)->entry;
  uintptr_t y = ((const struct loader_reach *)b)->entry;
  return x < y ? -1 : x > y;
}

int reach_build(struct emu_image *img, const struct elf_file *f) {
  struct reach r = {.img = img, .budget = SCAN_BUDGET};
  r.all = (img->uses_libomp ? LOADER_USES_LIBOMP : 0u) |
          (img->sets_icvs ? LOADER_THREAD_BOUND : 0u);
  if (!r.all || !img->nentries)
    return 0; /* nothing to tell kernels apart by */
  int rc = collect_functions(&r, f);
  if (rc == 0)
    rc = collect_slots(&r);
  if (rc == 0 && r.nfn) {
    collect_plt(&r, f);
    r.seen = malloc(r.nfn);
    r.work = malloc(r.nfn * sizeof *r.work);
    img->reach = calloc(img->nentries, sizeof *img->reach);
    if (!r.seen || !r.work || !img->reach)
      rc = -1;
  }
  for (size_t i = 0; rc == 0 && r.nfn && i < img->nentries; i++) {
    uintptr_t e = (uintptr_t)img->entries[i].addr;
    if (img->entries[i].size || !img_is_code(img, e))
      continue;
    img->reach[img->nreach++] =
        (struct loader_reach){e, kernel_reach(&r, e - img->base)};
  }
  if (rc == 0 && img->nreach > 1)
    qsort(img->reach, img->nreach, sizeof *img->reach, by_entry);
  if (rc == 0 && r.nfn) {
    size_t plain = 0;
    for (size_t i = 0; i < img->nreach; i++)
      plain += !img->reach[i].needs;
    ompemu_trace(2, "emu", "device %d: image %s: %zu of %zu kernels reach no "
                 "libomp call (they may run on the launching thread)",
                 img->dev, img->label, plain, img->nreach);
  }
  free(r.fn);
  free(r.slot);
  free(r.seen);
  free(r.work);
  if (rc < 0) { /* the image-wide answer still holds */
    free(img->reach);
    img->reach = NULL;
    img->nreach = 0;
  }
  return 0;
}

int reach_find(const struct emu_image *img, const void *entry,
               unsigned *needs) {
  size_t lo = 0, hi = img->nreach;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uintptr_t e = img->reach[mid].entry;
    if (e == (uintptr_t)entry) {
      *needs = img->reach[mid].needs;
      return 1;
    }
    if (e < (uintptr_t)entry)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}
