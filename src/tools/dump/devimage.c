/* ompemu-dump: offload entry tables, and what a device image holds and
 * needs (its own omp_offloading_entries, DT_NEEDED, undefined dynamic
 * symbols).  Relocations are decoded for x86-64 images only. */
#include "config.h"

#include "dump.h"
#include "elfview.h"

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
  for (size_t i = 0; i < count; i++) {
    uint64_t at = vaddr + i * sizeof(__tgt_offload_entry);
    struct dump_entry *e = &out[i];
    uint64_t nameptr;
    const char *imp, *addr_imp;
    e->exported = -1;
    if (ev_read_ptr(v, at, &e->addr, &addr_imp) != 0 ||
        ev_read_ptr(v, at + 8, &nameptr, &imp) != 0 ||
        ev_read(v, at + 16, &e->size, 8) != 0 ||
        ev_read(v, at + 24, &e->flags, 4) != 0 ||
        ev_read(v, at + 28, &e->reserved, 4) != 0) {
      dump_note(notes, "entry %zu at 0x%016lx is outside the file", i,
                (unsigned long)at);
      continue;
    }
    e->import = addr_imp ? strdup(addr_imp) : NULL;
    e->name = imp ? NULL : ev_string(v, nameptr, MAX_NAME);
    if (!e->name)
      dump_note(notes, "entry %zu: name pointer 0x%016lx is unreadable", i,
                (unsigned long)nameptr);
    if (!e->import) {
      const char *s = ev_symbol_at(v, e->addr);
      e->symbol = s ? strdup(s) : NULL;
    }
    if (device && e->name)
      e->exported = ev_dynsym_defines(v, e->name);
  }
  return out;
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

static void read_undefined(struct ev *v, struct dump_devimage *out) {
  for (size_t i = 1; i < v->dynsym.count; i++) {
    GElf_Sym s;
    const char *n = ev_symname(v, &v->dynsym, i, &s);
    if (!n || !*n || s.st_shndx != SHN_UNDEF)
      continue;
    push(&out->undef, &out->nundef, n,
         GELF_ST_BIND(s.st_info) == STB_WEAK ? " (weak)" : "");
  }
}

void dump_devimage_view(struct ev *v, struct dump_devimage *out) {
  out->is_elf = 1;
  out->elf_class = 64;
  out->machine = v->eh.e_machine;
  out->type = v->eh.e_type;
  read_needed(v, out);
  read_undefined(v, out);
  GElf_Shdr sh;
  if (!ev_section(v, "omp_offloading_entries", &sh)) {
    if (v->shnum)
      dump_note(&out->notes, "no omp_offloading_entries section");
    else
      dump_note(&out->notes, "no section headers: entries not located");
    return;
  }
  out->has_entries = 1;
  if (v->eh.e_machine != EM_X86_64) {
    out->skipped = "relocations are decoded for x86-64 images only";
    return;
  }
  if (sh.sh_size % sizeof(__tgt_offload_entry))
    dump_note(&out->notes,
              "omp_offloading_entries is %lu bytes, not a multiple of 32",
              (unsigned long)sh.sh_size);
  out->nentries = sh.sh_size / sizeof(__tgt_offload_entry);
  out->entries =
      dump_read_entries(v, sh.sh_addr, out->nentries, !v->is_rel, &out->notes);
  if (!out->entries)
    out->nentries = 0;
}

void dump_devimage(const void *bytes, size_t len, struct dump_devimage *out) {
  memset(out, 0, sizeof(*out));
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
  const char *why;
  if (ev_open(&v, bytes, len, &out->notes, &why) != 0) {
    dump_note(&out->notes, "image not parsed: %s", why);
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
  for (size_t i = 0; i < d->notes.n; i++)
    free(d->notes.msgs[i]);
  free(d->needed);
  free(d->undef);
  free(d->notes.msgs);
}
