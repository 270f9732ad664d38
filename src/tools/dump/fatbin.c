/* ompemu-dump: the registration data of a fat executable or shared library
 * (docs/abi-clang14.md 4.1): the descriptor(s), found by the symbol
 * .omp_offloading.descriptor or, in a stripped file, by scanning data for a
 * __tgt_bin_desc whose host-entry bounds are the entries section
 * (omp_offloading_entries, or llvm_offload_entries for clang 22 and
 * flang 22); each image with its __tgt_image_info when ompemu-wrap made it
 * and its OffloadBinary container (clang 16+); the host entries, 32 or 56
 * bytes each.  Pointers are read after dynamic relocation. */
#include "config.h"

#include "dump.h"
#include "image_format.h"
#include "image_symbols.h"
#include "elfview.h"

#include <stdlib.h>
#include <string.h>

#include <ompemu/abi.h>

/* Limits that separate a real descriptor from garbage. */
#define MAX_IMAGES 4096
#define MAX_IMAGE_BYTES ((uint64_t)1 << 34)

/* Read image I's info objects (.offload_image_info[.N] symbols, or a scan
 * for records whose arch pointer lies in .offload_arch_list). */
static void read_infos(struct ev *v, struct dump_desc *d) {
  int found = 0;
  for (size_t i = 1; i < v->symtab.count; i++) {
    GElf_Sym s;
    const char *n = ev_symname(v, &v->symtab, i, &s);
    if (!n || strncmp(n, ".offload_image_info", 19) != 0 ||
        s.st_shndx == SHN_UNDEF)
      continue;
    __tgt_image_info info;
    uint64_t arch;
    const char *imp;
    if (ev_read(v, s.st_value, &info, 16) != 0 ||
        ev_read_ptr(v, s.st_value + 16, &arch, &imp) != 0)
      continue;
    if (info.image_number < 0 || (size_t)info.image_number >= d->nimages ||
        info.number_images != d->num_images)
      continue;
    struct dump_image *im = &d->images[info.image_number];
    im->has_info = 1;
    found = 1;
    if (arch && !im->arch)
      im->arch = ev_string(v, arch, 256);
  }
  GElf_Shdr al;
  if (found || !ev_section(v, ".offload_arch_list", &al))
    return;
  for (size_t k = 1; k < v->shnum; k++) {
    GElf_Shdr sh;
    if (!ev_shdr(v, k, &sh) || !(sh.sh_flags & SHF_WRITE) ||
        !(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS)
      continue;
    for (uint64_t off = 0; off + 32 <= sh.sh_size; off += 8) {
      __tgt_image_info info;
      uint64_t arch;
      const char *imp;
      if (ev_read(v, sh.sh_addr + off, &info, 16) != 0)
        break;
      if (info.version != 1 || info.number_images != d->num_images ||
          info.image_number < 0 || (size_t)info.image_number >= d->nimages ||
          ev_read_ptr(v, sh.sh_addr + off + 16, &arch, &imp) != 0 ||
          arch < al.sh_addr || arch >= al.sh_addr + al.sh_size)
        continue;
      struct dump_image *im = &d->images[info.image_number];
      im->has_info = 1;
      if (!im->arch)
        im->arch = ev_string(v, arch, 256);
    }
  }
}

/* Fill D from the __tgt_bin_desc at D->addr. */
/* The host entries of D that image IM (BYTES, SIZE: its device code, in
 * a container or not) defines with another size, as the registration
 * finds them (global_sizes.c: plain variables only). */
static void size_diffs(const struct dump_desc *d, struct dump_image *im,
                       const void *bytes, size_t size) {
  struct rt_image_desc desc;
  char why[256];
  if (rt_image_describe(bytes, (const char *)bytes + size, &desc, why,
                        sizeof why) != 0 || !desc.is_elf)
    return;
  const unsigned char *code = desc.code;
  size_t len = desc.code_size;
  const char **names = calloc(d->nhost ? d->nhost : 1, sizeof *names);
  uint64_t *sizes = calloc(d->nhost ? d->nhost : 1, sizeof *sizes);
  unsigned char *func = calloc(d->nhost ? d->nhost : 1, 1);
  if (names && sizes && func) {
    for (size_t h = 0; h < d->nhost; h++)
      if (d->host[h].size && d->host[h].name && !d->host[h].flags)
        names[h] = d->host[h].name;
    if (rt_image_symbol_sizes(code, len, names, d->nhost, sizes, func) == 0)
      for (size_t h = 0; h < d->nhost; h++) {
        if (!names[h] || sizes[h] == RT_NO_SYMBOL ||
            (sizes[h] == d->host[h].size && !func[h]))
          continue;
        struct dump_size_diff *n = realloc(
            im->sizediff, (im->nsizediff + 1) * sizeof *im->sizediff);
        if (!n)
          break;
        im->sizediff = n;
        n[im->nsizediff].name = strdup(names[h]);
        n[im->nsizediff].host = d->host[h].size;
        n[im->nsizediff].kernel = func[h];
        n[im->nsizediff++].dev = sizes[h];
      }
  }
  free(func);
  free(names);
  free(sizes);
}

static int read_desc(struct ev *v, struct dump_desc *d,
                     struct dump_notes *notes) {
  const char *imp;
  if (ev_read(v, d->addr, &d->num_images, 4) != 0 ||
      ev_read_ptr(v, d->addr + 8, &d->images_addr, &imp) != 0 ||
      ev_read_ptr(v, d->addr + 16, &d->host_begin, &d->host_begin_sym) != 0 ||
      ev_read_ptr(v, d->addr + 24, &d->host_end, &d->host_end_sym) != 0) {
    dump_note(notes, "descriptor at 0x%016lx is outside the file",
              (unsigned long)d->addr);
    return -1;
  }
  if (d->num_images < 0 || d->num_images > MAX_IMAGES) {
    dump_note(notes, "descriptor at 0x%016lx: %d images is not plausible",
              (unsigned long)d->addr, d->num_images);
    return -1;
  }
  if (d->host_begin_sym || d->host_end_sym)
    ; /* an object file: the linker binds the bounds */
  else if (d->host_end < d->host_begin)
    dump_note(notes, "descriptor at 0x%016lx: host entries end 0x%016lx "
              "before begin 0x%016lx", (unsigned long)d->addr,
              (unsigned long)d->host_end, (unsigned long)d->host_begin);
  else {
    uint64_t bytes = d->host_end - d->host_begin;
    d->host_format =
        dump_entries_layout(v, d->host_begin, bytes, &d->nhost, notes);
    d->host = dump_read_entries_fmt(v, d->host_begin, d->nhost,
                                    d->host_format, 0, notes);
    if (!d->host)
      d->nhost = 0;
  }

  d->images = calloc(d->num_images ? (size_t)d->num_images : 1,
                     sizeof(*d->images));
  if (!d->images)
    return -1;
  d->nimages = (size_t)d->num_images;
  for (size_t i = 0; i < d->nimages; i++) {
    struct dump_image *im = &d->images[i];
    uint64_t at = d->images_addr + i * sizeof(__tgt_device_image);
    if (ev_read_ptr(v, at, &im->start, &imp) != 0 ||
        ev_read_ptr(v, at + 8, &im->end, &imp) != 0 ||
        ev_read_ptr(v, at + 16, &im->entries_begin, &imp) != 0 ||
        ev_read_ptr(v, at + 24, &im->entries_end, &imp) != 0) {
      dump_note(notes, "image %zu: __tgt_device_image at 0x%016lx is "
                "unreadable", i, (unsigned long)at);
      dump_note(&im->dev.notes, "image record unreadable");
      continue;
    }
    uint64_t size = im->end - im->start;
    if (im->end < im->start || size > MAX_IMAGE_BYTES || size > v->size) {
      dump_note(notes, "image %zu: bounds 0x%016lx..0x%016lx are invalid", i,
                (unsigned long)im->start, (unsigned long)im->end);
      continue;
    }
    void *bytes = malloc(size ? size : 1);
    if (!bytes)
      continue;
    if (ev_read(v, im->start, bytes, size) != 0) {
      dump_note(notes, "image %zu: bytes 0x%016lx..0x%016lx are not in the "
                "file", i, (unsigned long)im->start, (unsigned long)im->end);
    } else {
      dump_devimage(bytes, size, &im->dev);
      dump_container_of(v, im, bytes, size);
      size_diffs(d, im, bytes, size);
    }
    free(bytes);
  }
  read_infos(v, d);
  return 0;
}

static int add_desc(struct dump_report *rep, uint64_t addr, const char *how) {
  for (size_t i = 0; i < rep->ndescs; i++)
    if (rep->descs[i].addr == addr)
      return 0;
  struct dump_desc *n =
      realloc(rep->descs, (rep->ndescs + 1) * sizeof(*rep->descs));
  if (!n)
    return -1;
  rep->descs = n;
  memset(&n[rep->ndescs], 0, sizeof(*n));
  n[rep->ndescs].addr = addr;
  n[rep->ndescs].how = how;
  rep->ndescs++;
  return 0;
}

/* Look through allocated, non-executable data for a 32-byte record
 * {N (1..MAX_IMAGES), 0 pad, images, BEGIN, END}. */
static void scan_descs(struct ev *v, struct dump_report *rep, uint64_t begin,
                       uint64_t end) {
  for (size_t k = 1; k < v->shnum; k++) {
    GElf_Shdr sh;
    if (!ev_shdr(v, k, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
        (sh.sh_flags & SHF_EXECINSTR) || sh.sh_type != SHT_PROGBITS ||
        sh.sh_addr == 0)
      continue;
    const unsigned char *bytes = ev_section_bytes(v, &sh);
    if (!bytes)
      continue;
    for (uint64_t off = (8 - (sh.sh_addr & 7)) & 7; off + 32 <= sh.sh_size;
         off += 8) {
      int32_t num, pad;
      memcpy(&num, bytes + off, 4);
      memcpy(&pad, bytes + off + 4, 4);
      if (num < 1 || num > MAX_IMAGES || pad != 0)
        continue;
      uint64_t b, e, imgs;
      const char *imp;
      uint64_t at = sh.sh_addr + off;
      if (ev_read_ptr(v, at + 16, &b, &imp) == 0 && b == begin &&
          ev_read_ptr(v, at + 24, &e, &imp) == 0 && e == end &&
          ev_read_ptr(v, at + 8, &imgs, &imp) == 0 &&
          ev_mapped(v, imgs, (size_t)num * sizeof(__tgt_device_image)))
        add_desc(rep, at, "scan");
    }
  }
}

int dump_fatbin(struct ev *v, struct dump_report *rep) {
  GElf_Shdr sh;
  GElf_Sym s;
  const char *secname;
  if (dump_entries_section(v, &sh, &secname)) {
    if (!ev_mapped(v, sh.sh_addr, sh.sh_size) ||
        (sh.sh_type != SHT_NOBITS && !ev_section_bytes(v, &sh)))
      dump_note(&rep->notes, "%s (0x%016lx, %lu bytes) "
                "lies outside the file's contents", secname,
                (unsigned long)sh.sh_addr, (unsigned long)sh.sh_size);
    else {
      rep->entries_section = 1;
      rep->entries_name = secname;
      rep->sec_begin = sh.sh_addr;
      rep->sec_end = sh.sh_addr + sh.sh_size;
    }
  } else if (ev_symbol(v, "__start_omp_offloading_entries", &s)) {
    rep->entries_section = 1;
    rep->entries_name = "omp_offloading_entries";
    rep->sec_begin = s.st_value;
    rep->sec_end = ev_symbol(v, "__stop_omp_offloading_entries", &s)
                       ? s.st_value
                       : rep->sec_begin;
  } else if (ev_symbol(v, "__start_llvm_offload_entries", &s)) {
    rep->entries_section = 1;
    rep->entries_name = "llvm_offload_entries";
    rep->sec_begin = s.st_value;
    rep->sec_end = ev_symbol(v, "__stop_llvm_offload_entries", &s)
                       ? s.st_value
                       : rep->sec_begin;
  }
  if (rep->entries_section) {
    size_t count;
    rep->entries_format = dump_entries_layout(
        v, rep->sec_begin, rep->sec_end - rep->sec_begin, &count, &rep->notes);
  }
  for (size_t i = 1; i < v->symtab.count; i++) {
    const char *n = ev_symname(v, &v->symtab, i, &s);
    if (n && strcmp(n, ".omp_offloading.descriptor") == 0 &&
        s.st_shndx != SHN_UNDEF)
      add_desc(rep, s.st_value, "symbol .omp_offloading.descriptor");
  }
  if (rep->ndescs == 0 && rep->entries_section)
    scan_descs(v, rep, rep->sec_begin, rep->sec_end);
  for (size_t i = 0; i < rep->ndescs; i++) {
    struct dump_desc *d = &rep->descs[i];
    if (read_desc(v, d, &rep->notes) == 0 && rep->entries_section &&
        !d->host_begin_sym &&
        (d->host_begin != rep->sec_begin || d->host_end != rep->sec_end))
      dump_note(&rep->notes, "descriptor %zu's host entries 0x%016lx..0x%016lx "
                "differ from the %s section", i,
                (unsigned long)d->host_begin, (unsigned long)d->host_end,
                rep->entries_name);
  }
  return rep->ndescs ? 0 : -1;
}
