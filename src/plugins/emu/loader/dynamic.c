/* The dynamic section of a loaded image: decoded into an array indexed by
 * DT_* tag, the dynamic symbol table sized from DT_GNU_HASH, DT_HASH or the
 * .dynsym section header, and every table checked to lie in the span. */
#include "config.h"
#include "loader_internal.h"

#include <stdlib.h>

/* Slot of TAG in emu_image.dyn, or -1 for tags the loader ignores. */
static int dyn_slot(int64_t tag) {
  if (tag >= 0 && tag < DT_NUM)
    return (int)tag;
  if (tag == DT_GNU_HASH)
    return DYN_GNU_HASH;
  if (tag == DT_FLAGS_1)
    return DYN_FLAGS_1;
  if (tag == DT_VERSYM)
    return DYN_VERSYM;
  if (tag == DT_VERNEED)
    return DYN_VERNEED;
  if (tag == DT_VERNEEDNUM)
    return DYN_VERNEEDNUM;
  return -1;
}

/* Highest symbol index + 1 covered by the GNU hash table at VADDR. */
static int gnu_hash_count(struct emu_image *img, uint64_t vaddr,
                          uint64_t *count) {
  if (!img_has(img, vaddr, 16))
    return img_fail(img,
                    "DT_GNU_HASH header at 0x%lx lies outside the image span "
                    "[0x%lx, 0x%lx)",
                    (unsigned long)vaddr, (unsigned long)img->vlo,
                    (unsigned long)img->vhi);
  uint32_t nbuckets = img_rd32(img, vaddr);
  uint32_t symoffset = img_rd32(img, vaddr + 4);
  uint32_t bloom = img_rd32(img, vaddr + 8);
  uint64_t buckets = vaddr + 16 + (uint64_t)bloom * 8;
  uint64_t chains = buckets + (uint64_t)nbuckets * 4;
  if (!img_has(img, vaddr, 16 + (uint64_t)bloom * 8 + (uint64_t)nbuckets * 4))
    return img_fail(img,
                    "bad DT_GNU_HASH table at 0x%lx: %u buckets and %u bloom "
                    "words run past the image span (end 0x%lx)",
                    (unsigned long)vaddr, nbuckets, bloom,
                    (unsigned long)img->vhi);
  uint32_t max = 0;
  for (uint32_t i = 0; i < nbuckets; i++) {
    uint32_t b = img_rd32(img, buckets + (uint64_t)i * 4);
    if (b > max)
      max = b;
  }
  if (max < symoffset) {
    *count = symoffset;
    return 0;
  }
  for (uint64_t idx = max;; idx++) {
    uint64_t at = chains + (idx - symoffset) * 4;
    if (!img_has(img, at, 4))
      return img_fail(img,
                      "bad DT_GNU_HASH table at 0x%lx: chain of symbol %lu "
                      "runs past the image span",
                      (unsigned long)vaddr, (unsigned long)idx);
    if (img_rd32(img, at) & 1) {
      *count = idx + 1;
      return 0;
    }
  }
}

/* Size the dynamic symbol table.  DT_HASH's nchain and the .dynsym section
 * are exact.  DT_GNU_HASH only counts the hashed (defined) symbols, a lower
 * bound: undefined symbols may follow them, and an image whose dynamic
 * symbols are all undefined has empty buckets (ld still writes symoffset 1).
 * With GNU hash alone, the symbol table is taken to run up to DT_STRTAB when
 * that follows it, as ld lays them out. */
static int count_symbols(struct emu_image *img, const struct elf_file *f) {
  uint64_t gnu = 0, exact = 0;
  int have_gnu = img->has[DYN_GNU_HASH], have_exact = 0;
  if (have_gnu && gnu_hash_count(img, img->dyn[DYN_GNU_HASH], &gnu) != 0)
    return -1;
  if (img->has[DT_HASH]) {
    uint64_t h = img->dyn[DT_HASH];
    if (!img_has(img, h, 8))
      return img_fail(img,
                      "DT_HASH at 0x%lx lies outside the image span",
                      (unsigned long)h);
    uint32_t nbucket = img_rd32(img, h), nchain = img_rd32(img, h + 4);
    if (!img_has(img, h, 8 + 4 * ((uint64_t)nbucket + nchain)))
      return img_fail(img,
                      "bad DT_HASH table at 0x%lx: %u buckets, %u chains run "
                      "past the image span (end 0x%lx)",
                      (unsigned long)h, nbucket, nchain,
                      (unsigned long)img->vhi);
    exact = nchain;
    have_exact = 1;
  }
  for (size_t i = 1; !have_exact && i < f->shnum; i++)
    if (f->sh[i].sh_type == SHT_DYNSYM && f->sh[i].sh_entsize) {
      exact = f->sh[i].sh_size / f->sh[i].sh_entsize;
      have_exact = 1;
    }
  if (have_exact) {
    if (have_gnu && gnu > exact)
      return img_fail(img,
                      "bad DT_GNU_HASH table at 0x%lx: it covers %lu symbols "
                      "but the symbol table has %lu",
                      (unsigned long)img->dyn[DYN_GNU_HASH],
                      (unsigned long)gnu, (unsigned long)exact);
    img->nsyms = exact;
    return 0;
  }
  if (have_gnu) {
    img->nsyms = gnu;
    uint64_t sym = img->dyn[DT_SYMTAB], str = img->dyn[DT_STRTAB];
    if (img->has[DT_STRTAB] && str > sym && (str - sym) / sizeof(Elf64_Sym) > gnu)
      img->nsyms = (str - sym) / sizeof(Elf64_Sym);
    return 0;
  }
  return img_fail(img,
                  "DT_SYMTAB without DT_GNU_HASH, DT_HASH or a .dynsym "
                  "section: cannot size the symbol table");
}

int dyn_decode(struct emu_image *img, const struct elf_file *f,
               uint64_t vaddr, uint64_t len) {
  if (!img_has(img, vaddr, len))
    return img_fail(img,
                    "PT_DYNAMIC [0x%lx, +0x%lx) lies outside the image span "
                    "[0x%lx, 0x%lx)",
                    (unsigned long)vaddr, (unsigned long)len,
                    (unsigned long)img->vlo, (unsigned long)img->vhi);
  size_t n = len / sizeof(Elf64_Dyn), nneeded = 0;
  size_t i;
  for (i = 0; i < n; i++) {
    Elf64_Dyn d;
    memcpy(&d, img_ptr(img, vaddr + i * sizeof d), sizeof d);
    if (d.d_tag == DT_NULL)
      break;
    if (d.d_tag == DT_NEEDED) {
      nneeded++;
      continue;
    }
    int s = dyn_slot(d.d_tag);
    if (s >= 0) {
      img->dyn[s] = d.d_un.d_val;
      img->has[s] = 1;
    }
  }
  if (i == n)
    return img_fail(img,
                    "dynamic section at 0x%lx (%zu entries) has no DT_NULL",
                    (unsigned long)vaddr, n);
  if (nneeded) {
    img->needed = calloc(nneeded, sizeof *img->needed);
    if (!img->needed)
      return img_fail(img, "out of memory");
    for (i = 0; i < n && img->nneeded < nneeded; i++) {
      Elf64_Dyn d;
      memcpy(&d, img_ptr(img, vaddr + i * sizeof d), sizeof d);
      if (d.d_tag == DT_NEEDED)
        img->needed[img->nneeded++] = d.d_un.d_val;
    }
  }

  if (img->has[DT_STRTAB]) {
    if (!img->has[DT_STRSZ])
      return img_fail(img, "DT_STRTAB without DT_STRSZ");
    if (!img_has(img, img->dyn[DT_STRTAB], img->dyn[DT_STRSZ]))
      return img_fail(img,
                      "string table DT_STRTAB 0x%lx size 0x%lx lies outside "
                      "the image span [0x%lx, 0x%lx)",
                      (unsigned long)img->dyn[DT_STRTAB],
                      (unsigned long)img->dyn[DT_STRSZ],
                      (unsigned long)img->vlo, (unsigned long)img->vhi);
  }
  if (img->has[DT_SYMTAB]) {
    if (!img->has[DT_STRTAB])
      return img_fail(img, "DT_SYMTAB without DT_STRTAB");
    if (img->has[DT_SYMENT] && img->dyn[DT_SYMENT] != sizeof(Elf64_Sym))
      return img_fail(img, "DT_SYMENT %lu, expected %zu",
                      (unsigned long)img->dyn[DT_SYMENT], sizeof(Elf64_Sym));
    if (count_symbols(img, f) != 0)
      return -1;
    if (img->nsyms > (img->vhi - img->vlo) / sizeof(Elf64_Sym) ||
        !img_has(img, img->dyn[DT_SYMTAB], img->nsyms * sizeof(Elf64_Sym)))
      return img_fail(img,
                      "symbol table DT_SYMTAB 0x%lx with %lu symbols lies "
                      "outside the image span [0x%lx, 0x%lx) (bad hash "
                      "table?)",
                      (unsigned long)img->dyn[DT_SYMTAB],
                      (unsigned long)img->nsyms, (unsigned long)img->vlo,
                      (unsigned long)img->vhi);
  }
  if (img->has[DT_RUNPATH] && !dyn_string(img, img->dyn[DT_RUNPATH]))
    return img_fail(img,
                    "DT_RUNPATH string offset 0x%lx outside the string table",
                    (unsigned long)img->dyn[DT_RUNPATH]);
  if (img->has[DT_RPATH] && !dyn_string(img, img->dyn[DT_RPATH]))
    return img_fail(img,
                    "DT_RPATH string offset 0x%lx outside the string table",
                    (unsigned long)img->dyn[DT_RPATH]);
  for (i = 0; i < img->nneeded; i++)
    if (!dyn_string(img, img->needed[i]))
      return img_fail(img,
                      "DT_NEEDED %zu: string offset 0x%lx outside the string "
                      "table (size 0x%lx)",
                      i, (unsigned long)img->needed[i],
                      (unsigned long)img->dyn[DT_STRSZ]);
  return 0;
}

const char *dyn_string(const struct emu_image *img, uint64_t off) {
  if (!img->has[DT_STRTAB] || off >= img->dyn[DT_STRSZ])
    return NULL;
  const char *s = img_ptr(img, img->dyn[DT_STRTAB] + off);
  if (!memchr(s, '\0', img->dyn[DT_STRSZ] - off))
    return NULL;
  return s;
}

void dyn_symbol(const struct emu_image *img, uint64_t idx, Elf64_Sym *sym) {
  memcpy(sym, img_ptr(img, img->dyn[DT_SYMTAB] + idx * sizeof *sym),
         sizeof *sym);
}
