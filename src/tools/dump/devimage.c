/* ompemu-dump: offload entry tables (32-byte omp_offloading_entries of
 * clang 14-19, 56-byte llvm_offload_entries of clang 22 / flang 22), the
 * OffloadBinary container an image may come in, and what a device image
 * holds and needs (its own entries, DT_NEEDED, undefined dynamic
 * symbols).  Relocations are decoded for x86-64 images only. */
#include "config.h"

#include "dump.h"
#include "elfview.h"
#include "entry_table.h"
#include "image_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompemu/abi.h>

/* Longest entry name read; a longer one is reported as unreadable. */
#define MAX_NAME 4096
/* More entries than this in one table is taken as a malformed table. */
#define MAX_ENTRIES (1u << 20)

void dump_free_entries(struct dump_entry *e, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(e[i].name);
    free(e[i].symbol);
    free(e[i].import);
  }
  free(e);
}

struct dump_entry *dump_read_entries(struct ev *v, uint64_t vaddr,
                                     size_t count, int device,
                                     struct dump_notes *notes) {
  return dump_read_entries_fmt(v, vaddr, count, 32, device, notes);
}

/* Read the entry of FORMAT at AT into E; 0, or -1 if outside the file.
 * *NAMEPTR, *NAME_IMP and *ADDR_IMP receive the pointer fields' extras. */
static int read_one(struct ev *v, uint64_t at, int format,
                    struct dump_entry *e, uint64_t *nameptr,
                    const char **name_imp, const char **addr_imp) {
  e->format = format;
  if (format == 56) {
    uint32_t flags;
    if (ev_read(v, at + 8, &e->version, 2) != 0 ||
        ev_read(v, at + 10, &e->okind, 2) != 0 ||
        ev_read(v, at + 12, &flags, 4) != 0 ||
        ev_read_ptr(v, at + 16, &e->addr, addr_imp) != 0 ||
        ev_read_ptr(v, at + 24, nameptr, name_imp) != 0 ||
        ev_read(v, at + 32, &e->size, 8) != 0 ||
        ev_read(v, at + 40, &e->data, 8) != 0)
      return -1;
    e->flags = (int32_t)flags;
    return 0;
  }
  e->okind = 1;
  if (ev_read_ptr(v, at, &e->addr, addr_imp) != 0 ||
      ev_read_ptr(v, at + 8, nameptr, name_imp) != 0 ||
      ev_read(v, at + 16, &e->size, 8) != 0 ||
      ev_read(v, at + 24, &e->flags, 4) != 0 ||
      ev_read(v, at + 28, &e->reserved, 4) != 0)
    return -1;
  if (e->flags & RT_ENTRY_FLAG_REQUIRES)
    e->data = (uint32_t)e->reserved;
  return 0;
}

struct dump_entry *dump_read_entries_fmt(struct ev *v, uint64_t vaddr,
                                         size_t count, int format,
                                         int device, struct dump_notes *notes) {
  if (count == 0)
    return NULL;
  if (count > MAX_ENTRIES) {
    dump_note(notes, "entry table at 0x%016lx claims %zu entries; not read",
              (unsigned long)vaddr, count);
    return NULL;
  }
  struct dump_entry *out = calloc(count, sizeof(*out));
  if (!out)
    return NULL;
  size_t esize = format == 56 ? RT_ENTRY_SIZE_LLVM : RT_ENTRY_SIZE_OMP;
  /* Entries outside the file make one note, not one each: a mutated
   * count claims up to MAX_ENTRIES of them. */
  size_t outside = 0, first_out = 0;
  for (size_t i = 0; i < count; i++) {
    uint64_t at = vaddr + i * esize;
    struct dump_entry *e = &out[i];
    uint64_t nameptr;
    const char *imp = NULL, *addr_imp = NULL;
    e->exported = -1;
    if (read_one(v, at, format, e, &nameptr, &imp, &addr_imp) != 0) {
      if (!outside++)
        first_out = i;
      continue;
    }
    e->import = addr_imp ? strdup(addr_imp) : NULL;
    e->name = imp ? NULL : ev_string(v, nameptr, MAX_NAME);
    if (!e->name)
      dump_note(notes, "entry %zu: name pointer 0x%016lx is unreadable", i,
                (unsigned long)nameptr);
    if (!e->import && e->addr) {
      const char *s = ev_symbol_at(v, e->addr);
      e->symbol = s ? strdup(s) : NULL;
    }
    if (device && e->name && *e->name)
      e->exported = ev_dynsym_defines(v, e->name);
  }
  if (outside == 1)
    dump_note(notes, "entry %zu at 0x%016lx is outside the file", first_out,
              (unsigned long)(vaddr + first_out * esize));
  else if (outside)
    dump_note(notes, "%zu entries from entry %zu at 0x%016lx on are outside "
              "the file", outside, first_out,
              (unsigned long)(vaddr + first_out * esize));
  return out;
}

int dump_entries_layout(struct ev *v, uint64_t vaddr, uint64_t bytes,
                        size_t *count, struct dump_notes *notes) {
  *count = (size_t)(bytes / RT_ENTRY_SIZE_OMP);
  if (bytes == 0 || bytes / RT_ENTRY_SIZE_OMP > MAX_ENTRIES)
    return 32;
  unsigned char *raw = malloc((size_t)bytes);
  if (!raw)
    return 32;
  enum rt_entry_format fmt;
  char why[256];
  int format = 32;
  if (ev_read(v, vaddr, raw, (size_t)bytes) != 0) {
    /* dump_read_entries says which entries are outside the file */
  } else if (rt_entries_detect(raw, raw + bytes, &fmt, count, why,
                               sizeof why) != 0) {
    dump_note(notes, "%s", why);
    *count = (size_t)(bytes / RT_ENTRY_SIZE_OMP);
  } else if (fmt == RT_ENTRIES_LLVM56) {
    format = 56;
  }
  free(raw);
  return format;
}

int dump_entries_section(struct ev *v, GElf_Shdr *sh, const char **name) {
  static const char *const names[] = {"llvm_offload_entries",
                                      "omp_offloading_entries"};
  for (size_t i = 0; i < 2; i++)
    if (ev_section(v, names[i], sh)) {
      *name = names[i];
      return 1;
    }
  return 0;
}

void dump_free_container(struct dump_container *c) {
  free(c->triple);
  free(c->arch);
  memset(c, 0, sizeof *c);
}

/* Fill C from the container described by D at file address ADDR. */
static void set_container(struct dump_container *c, const struct rt_image_desc *d,
                          uint64_t addr) {
  c->present = 1;
  c->addr = addr;
  c->version = d->container_version;
  c->size = d->container_size;
  c->image_kind = d->image_kind;
  c->offload_kind = d->offload_kind;
  c->flags = d->flags;
  c->triple = d->triple ? strdup(d->triple) : NULL;
  c->arch = d->arch ? strdup(d->arch) : NULL;
  c->code_offset = (uint64_t)(d->code - d->container);
  c->code_size = d->code_size;
}

void dump_container_of(struct ev *v, struct dump_image *im, const void *bytes,
                       size_t len) {
  struct rt_image_desc d;
  char why[256];
  if (rt_image_describe(bytes, (const char *)bytes + len, &d, why,
                        sizeof why) != 0)
    return; /* dump_devimage notes what is wrong */
  if (d.in_container) {
    set_container(&im->container, &d, im->start);
    return;
  }
  /* clang 19/22: ImageStart is the ELF inside a container that ends where
   * the image ends; look for one that starts before it in the same
   * section and holds exactly this image. */
  GElf_Shdr sh;
  if (!ev_section(v, ".llvm.offloading", &sh) || im->start < sh.sh_addr ||
      im->start >= sh.sh_addr + sh.sh_size)
    return;
  for (uint64_t at = sh.sh_addr; at + 8 <= im->start; at += 8) {
    uint64_t size;
    unsigned char magic[4];
    if (ev_read(v, at, magic, 4) != 0 || memcmp(magic, RT_OFFLOAD_BINARY_MAGIC, 4) ||
        ev_read(v, at + 8, &size, 8) != 0 || size > v->size ||
        at + size < im->end)
      continue;
    unsigned char *c = malloc((size_t)size);
    if (!c)
      return;
    struct rt_image_desc outer;
    if (ev_read(v, at, c, (size_t)size) == 0 &&
        rt_image_describe(c, c + size, &outer, why, sizeof why) == 0 &&
        at + (uint64_t)(outer.code - c) == im->start &&
        outer.code_size == len) {
      set_container(&im->container, &outer, at);
      im->container.around = 1;
      free(c);
      return;
    }
    free(c);
  }
}

static int push(char ***arr, size_t *n, const char *s, const char *suffix) {
  char **na = realloc(*arr, (*n + 1) * sizeof(char *));
  if (!na)
    return -1;
  *arr = na;
  size_t len = strlen(s) + strlen(suffix) + 1;
  if (!(na[*n] = malloc(len)))
    return -1;
  snprintf(na[*n], len, "%s%s", s, suffix);
  (*n)++;
  return 0;
}

/* DT_NEEDED names from the SHT_DYNAMIC section. */
static void read_needed(struct ev *v, struct dump_devimage *out) {
  for (size_t i = 1; i < v->shnum; i++) {
    Elf_Scn *scn = elf_getscn(v->elf, i);
    GElf_Shdr sh;
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
      continue;
    if (!ev_section_bytes(v, &sh) || sh.sh_link >= v->shnum) {
      dump_note(&out->notes, "dynamic section is malformed");
      return;
    }
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t n = d ? d->d_size / sizeof(Elf64_Dyn) : 0;
    for (size_t k = 0; k < n; k++) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(d, (int)k, &dyn) || dyn.d_tag == DT_NULL)
        break;
      if (dyn.d_tag != DT_NEEDED)
        continue;
      const char *s = elf_strptr(v->elf, sh.sh_link, dyn.d_un.d_val);
      push(&out->needed, &out->nneeded, s ? s : "?", "");
    }
    return;
  }
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Undefined dynamic symbols, and the sorted names of the defined ones. */
static void read_undefined(struct ev *v, struct dump_devimage *out) {
  for (size_t i = 1; i < v->dynsym.count; i++) {
    GElf_Sym s;
    const char *n = ev_symname(v, &v->dynsym, i, &s);
    if (!n || !*n)
      continue;
    if (s.st_shndx != SHN_UNDEF) {
      if (GELF_ST_BIND(s.st_info) != STB_LOCAL)
        push(&out->defined, &out->ndefined, n, "");
      continue;
    }
    push(&out->undef, &out->nundef, n,
         GELF_ST_BIND(s.st_info) == STB_WEAK ? " (weak)" : "");
  }
  if (out->ndefined)
    qsort(out->defined, out->ndefined, sizeof(char *), cmp_str);
}

int dump_devimage_defines(const struct dump_devimage *d, const char *name) {
  if (!name || !d->ndefined)
    return 0;
  return bsearch(&name, d->defined, d->ndefined, sizeof(char *), cmp_str) !=
         NULL;
}

void dump_devimage_view(struct ev *v, struct dump_devimage *out) {
  out->is_elf = 1;
  out->elf_class = 64;
  out->machine = v->eh.e_machine;
  out->type = v->eh.e_type;
  read_needed(v, out);
  read_undefined(v, out);
  GElf_Shdr sh;
  if (!dump_entries_section(v, &sh, &out->entries_section)) {
    if (v->shnum)
      dump_note(&out->notes, "no omp_offloading_entries or "
                "llvm_offload_entries section");
    else
      dump_note(&out->notes, "no section headers: entries not located");
    return;
  }
  out->has_entries = 1;
  if (v->eh.e_machine != EM_X86_64) {
    out->skipped = "relocations are decoded for x86-64 images only";
    return;
  }
  out->entries_format =
      dump_entries_layout(v, sh.sh_addr, sh.sh_size, &out->nentries, &out->notes);
  out->entries = dump_read_entries_fmt(v, sh.sh_addr, out->nentries,
                                       out->entries_format, !v->is_rel,
                                       &out->notes);
  if (!out->entries)
    out->nentries = 0;
}

void dump_devimage(const void *bytes, size_t len, struct dump_devimage *out) {
  memset(out, 0, sizeof(*out));
  /* An OffloadBinary container (clang 16): describe the ELF inside. */
  struct rt_image_desc d;
  char why[256];
  if (len >= 4 && memcmp(bytes, RT_OFFLOAD_BINARY_MAGIC, 4) == 0) {
    if (rt_image_describe(bytes, (const char *)bytes + len, &d, why,
                          sizeof why) != 0) {
      dump_note(&out->notes, "%s", why);
      return;
    }
    if (!d.is_elf) {
      dump_note(&out->notes, "OffloadBinary image of kind %s is not ELF",
                rt_image_kind_name(d.image_kind));
      return;
    }
    bytes = d.code;
    len = d.code_size;
  }
  if (len < SELFMAG || memcmp(bytes, ELFMAG, SELFMAG) != 0) {
    dump_note(&out->notes, "not an ELF file (%zu bytes)", len);
    return;
  }
  if (len > EI_CLASS)
    out->elf_class =
        ((const unsigned char *)bytes)[EI_CLASS] == ELFCLASS32 ? 32 : 64;
  if (len >= 20) { /* e_type and e_machine are at the same place in both */
    const unsigned char *b = bytes;
    out->type = (unsigned)(b[16] | b[17] << 8);
    out->machine = (unsigned)(b[18] | b[19] << 8);
  }
  out->is_elf = 1;
  struct ev v;
  const char *w;
  if (ev_open(&v, bytes, len, &out->notes, &w) != 0) {
    dump_note(&out->notes, "image not parsed: %s", w);
    return;
  }
  dump_devimage_view(&v, out);
  ev_close(&v);
}

void dump_free_devimage(struct dump_devimage *d) {
  dump_free_entries(d->entries, d->nentries);
  for (size_t i = 0; i < d->nneeded; i++)
    free(d->needed[i]);
  for (size_t i = 0; i < d->nundef; i++)
    free(d->undef[i]);
  for (size_t i = 0; i < d->ndefined; i++)
    free(d->defined[i]);
  free(d->defined);
  for (size_t i = 0; i < d->notes.n; i++)
    free(d->notes.msgs[i]);
  free(d->needed);
  free(d->undef);
  free(d->notes.msgs);
}
