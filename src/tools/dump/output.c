/* ompemu-dump's two output forms: text for people, JSON for scripts.
 * Addresses are printed as 0x%016lx in both (JSON: as strings). */
#include "config.h"

#include "dump.h"
#include "entry_table.h"
#include "image_format.h"

#include <elf.h>
#include <stdio.h>
#include <string.h>

#include <ompemu/abi.h>

#define P(x) ((unsigned long)(x))

/* The runtime's classification (src/runtime/entry_table.c), in the
 * words ompemu-dump has always printed. */
const char *dump_entry_kind(const struct dump_entry *e) {
  if (e->format == 56 && e->okind != 1)
    return "other offload kind";
  switch (rt_entry_classify((uint32_t)e->flags, e->size)) {
  case RT_ENTRY_KERNEL: return "kernel";
  case RT_ENTRY_GLOBAL: return "variable";
  case RT_ENTRY_LINK: return "link";
  case RT_ENTRY_CTOR: return "ctor";
  case RT_ENTRY_DTOR: return "dtor";
  case RT_ENTRY_INDIRECT: return "indirect function";
  case RT_ENTRY_VTABLE: return "vtable";
  case RT_ENTRY_REQUIRES: return "requires";
  case RT_ENTRY_OTHER: break;
  }
  return "other offload kind";
}

/* The requires clauses in BITS, as words, into BUF. */
static const char *requires_words(uint64_t bits, char *buf, size_t len) {
  static const struct {
    uint64_t bit;
    const char *name;
  } words[] = {{OMP_REQ_NONE, "none"},
               {OMP_REQ_REVERSE_OFFLOAD, "reverse_offload"},
               {OMP_REQ_UNIFIED_ADDRESS, "unified_address"},
               {OMP_REQ_UNIFIED_SHARED_MEMORY, "unified_shared_memory"},
               {OMP_REQ_DYNAMIC_ALLOCATORS, "dynamic_allocators"}};
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof words / sizeof words[0] && used < len; i++)
    if (bits & words[i].bit)
      used += (size_t)snprintf(buf + used, len - used, "%s%s",
                               used ? "|" : "", words[i].name);
  if (!used)
    snprintf(buf, len, "-");
  return buf;
}

/* Flags as words ("LINK|CTOR", "none", unknown bits in hex) into BUF. */
static const char *flag_words(int32_t flags, char *buf, size_t len) {
  static const struct {
    int32_t bit;
    const char *name;
  } words[] = {{OMP_DECLARE_TARGET_LINK, "LINK"},
               {OMP_DECLARE_TARGET_CTOR, "CTOR"},
               {OMP_DECLARE_TARGET_DTOR, "DTOR"},
               {OMP_DECLARE_TARGET_FPTR, "FPTR"},
               {RT_ENTRY_FLAG_REQUIRES, "REQUIRES"},
               {RT_ENTRY_FLAG_VTABLE, "VTABLE"}};
  size_t used = 0;
  buf[0] = '\0';
  uint32_t rest = (uint32_t)flags;
  for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if (rest & (uint32_t)words[i].bit) {
      used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
                               words[i].name);
      rest &= ~(uint32_t)words[i].bit;
      if (used >= len)
        return buf;
    }
  if (rest)
    snprintf(buf + used, len - used, "%s0x%x", used ? "|" : "", rest);
  else if (used == 0)
    snprintf(buf, len, "none");
  return buf;
}

const char *dump_machine_name(unsigned m) {
  switch (m) {
  case EM_X86_64: return "x86-64";
  case EM_386: return "i386";
  case EM_AARCH64: return "AArch64";
  case EM_PPC64: return "PowerPC64";
  case EM_CUDA: return "CUDA";
  case 224: return "AMDGPU"; /* EM_AMDGPU */
  case 251: return "VE";     /* EM_VE */
  default: return "unknown";
  }
}

const char *dump_type_name(unsigned t) {
  switch (t) {
  case ET_REL: return "REL";
  case ET_EXEC: return "EXEC";
  case ET_DYN: return "DYN";
  case ET_CORE: return "CORE";
  default: return "unknown";
  }
}

/* Pairing of host entry I with the device table D: the index of the device
 * entry with the same name (how ompemu pairs), or -1. */
static long by_name(const struct dump_entry *h, const struct dump_devimage *d) {
  if (!h->name)
    return -1;
  for (size_t k = 0; k < d->nentries; k++)
    if (d->entries[k].name && strcmp(d->entries[k].name, h->name) == 0)
      return (long)k;
  return -1;
}

/* Does LLVM 14's positional pairing give host entry I a device entry of
 * another name (or none)? */
static int position_differs(const struct dump_desc *x, size_t i,
                            const struct dump_devimage *d) {
  const char *hn = x->host[i].name;
  const char *dn = i < d->nentries ? d->entries[i].name : NULL;
  return !hn || !dn || strcmp(hn, dn) != 0;
}

/* Why a host entry with no device entry of its name is fine, or not:
 * ompemu looks every host name up in the image's .dynsym. */
static const char *unpaired_why(const struct dump_entry *h,
                                const struct dump_devimage *d) {
  enum rt_entry_kind k = rt_entry_classify((uint32_t)h->flags, h->size);
  if (k == RT_ENTRY_REQUIRES)
    return " (a requires entry: no device symbol)";
  if (!dump_devimage_defines(d, h->name))
    return " and the image does not export it";
  switch (k) {
  case RT_ENTRY_LINK:
    return " (a link reference pointer: the image exports it, filled by "
           "mapping)";
  case RT_ENTRY_VTABLE:
    return " (a vtable: the device entry has the class's own name; the "
           "image exports this name as a pointer)";
  default:
    return " (the image exports it: found by name in its .dynsym)";
  }
}

/* ------------------------------------------------------------------ text */

/* How the host entries of X pair with image D's entries, by name (ompemu)
 * and by position (LLVM 14's x86_64 plugin). */
static void text_pairing(const struct dump_desc *x,
                         const struct dump_devimage *d) {
  if (!d->has_entries || d->skipped || !x->nhost)
    return;
  size_t missing = 0, differ = 0;
  for (size_t i = 0; i < x->nhost; i++) {
    missing += by_name(&x->host[i], d) < 0;
    differ += position_differs(x, i, d);
  }
  printf("    pairing: by name %zu of %zu host entries found", x->nhost - missing,
         x->nhost);
  if (differ || d->nentries != x->nhost)
    printf("; by position (LLVM 14) %zu differ%s\n", differ,
           d->nentries != x->nhost ? ", and the table sizes differ" : "");
  else
    printf("; by position (LLVM 14) the same\n");
  for (size_t i = 0; i < x->nhost; i++) {
    if (by_name(&x->host[i], d) < 0)
      printf("      host [%zu] %s: no device entry of that name%s\n", i,
             x->host[i].name ? x->host[i].name : "?",
             unpaired_why(&x->host[i], d));
    if (position_differs(x, i, d))
      printf("      host [%zu] %s: LLVM 14 would pair it with device [%zu] "
             "%s\n", i, x->host[i].name ? x->host[i].name : "?", i,
             i < d->nentries && d->entries[i].name ? d->entries[i].name
                                                  : "(none)");
  }
}


static void text_entries(const char *indent, const struct dump_entry *e,
                         size_t n, int device) {
  char fw[64], rw[96];
  for (size_t i = 0; i < n; i++) {
    printf("%s[%zu] %-18s %s\n", indent, i, dump_entry_kind(&e[i]),
           !e[i].name ? "(unreadable name)" : *e[i].name ? e[i].name
                                                          : "(empty name)");
    if (e[i].flags & RT_ENTRY_FLAG_REQUIRES)
      printf("%s     requires %s (0x%lx)\n", indent,
             requires_words(e[i].data, rw, sizeof rw), P(e[i].data));
    if (e[i].format == 56 && e[i].okind != 1)
      printf("%s     offload kind %u (not OpenMP)\n", indent, e[i].okind);
    printf("%s     flags %s (0x%x), size %lu, addr ", indent,
           flag_words(e[i].flags, fw, sizeof(fw)), (unsigned)e[i].flags,
           P(e[i].size));
    if (e[i].import)
      printf("from %s", e[i].import);
    else
      printf("0x%016lx%s%s%s", P(e[i].addr), e[i].symbol ? " (" : "",
             e[i].symbol ? e[i].symbol : "", e[i].symbol ? ")" : "");
    if (device && e[i].exported >= 0)
      printf(", %s", e[i].exported ? "exported" : "not in .dynsym");
    putchar('\n');
  }
}

static void text_notes(const char *indent, const struct dump_notes *n) {
  for (size_t i = 0; i < n->n; i++)
    printf("%snote: %s\n", indent, n->msgs[i]);
}

/* How the image is stored: raw ELF, or an OffloadBinary container. */
static void text_container(const char *indent, const struct dump_container *c) {
  if (!c->present) {
    printf("%sformat: raw ELF\n", indent);
    return;
  }
  if (c->around)
    printf("%sformat: raw ELF inside an OffloadBinary (clang 19+: the image "
           "starts at offset 0x%lx of the container at 0x%016lx)\n",
           indent, P(c->code_offset), P(c->addr));
  else
    printf("%sformat: OffloadBinary (clang 16), ELF at offset 0x%lx, %lu "
           "bytes\n", indent, P(c->code_offset), P(c->code_size));
  printf("%scontainer: version %u, %lu bytes, image kind %s, offload kind "
         "%s, flags 0x%x, triple %s, arch \"%s\"\n",
         indent, c->version, P(c->size), rt_image_kind_name(c->image_kind),
         rt_offload_kind_name(c->offload_kind), c->flags,
         c->triple ? c->triple : "(none)", c->arch ? c->arch : "(none)");
}

static void text_dev(const char *indent, const struct dump_devimage *d) {
  char in2[32];
  snprintf(in2, sizeof(in2), "%s  ", indent);
  if (d->is_elf)
    printf("%sELF%d, machine %u (%s), type %s\n", indent, d->elf_class,
           d->machine, dump_machine_name(d->machine),
           dump_type_name(d->type));
  if (d->has_entries && d->skipped) {
    printf("%sdevice entries: not read (%s)\n", indent, d->skipped);
  } else if (d->has_entries) {
    printf("%sentry table: %s, %d-byte entries\n", indent,
           d->entries_section, d->entries_format);
    printf("%s%s (%zu):\n", indent,
           d->type == ET_REL ? "entries" : "device entries", d->nentries);
    text_entries(in2, d->entries, d->nentries, 1);
  }
  if (d->is_elf && d->type != ET_REL) {
    printf("%sneeds libraries (%zu):", indent, d->nneeded);
    for (size_t i = 0; i < d->nneeded; i++)
      printf(" %s", d->needed[i]);
    printf("\n%sneeds symbols (%zu):", indent, d->nundef);
    for (size_t i = 0; i < d->nundef; i++)
      printf("%s %s", i ? "," : "", d->undef[i]);
    putchar('\n');
  }
  text_notes(indent, &d->notes);
}

void dump_print_text(const struct dump_report *r) {
  printf("%s: %s", r->file, r->kind);
  if (r->is_elf)
    printf(" (ELF64 %s, %s)", dump_machine_name(r->machine),
           dump_type_name(r->type));
  putchar('\n');
  if (r->type == ET_REL)
    printf("(a relocatable object: section N's offsets are shown as "
           "addresses N << 40 + offset)\n");
  if (r->entries_section)
    printf("%s: 0x%016lx..0x%016lx (%lu entries of %d bytes)\n",
           r->entries_name, P(r->sec_begin), P(r->sec_end),
           P((r->sec_end - r->sec_begin) / (unsigned)r->entries_format),
           r->entries_format);
  for (size_t k = 0; k < r->ndescs; k++) {
    const struct dump_desc *d = &r->descs[k];
    printf("descriptor %zu at 0x%016lx (found by %s): %d image(s) at "
           "0x%016lx, ", k, P(d->addr), d->how, d->num_images,
           P(d->images_addr));
    if (d->host_begin_sym || d->host_end_sym) {
      printf("host entries %s..%s (bound when linked)\n",
             d->host_begin_sym ? d->host_begin_sym : "?",
             d->host_end_sym ? d->host_end_sym : "?");
    } else {
      printf("host entries 0x%016lx..0x%016lx\n", P(d->host_begin),
             P(d->host_end));
      printf("  host entries (%zu):\n", d->nhost);
      text_entries("    ", d->host, d->nhost, 0);
    }
    for (size_t i = 0; i < d->nimages; i++) {
      const struct dump_image *im = &d->images[i];
      printf("  image %zu: arch %s, %lu bytes at 0x%016lx..0x%016lx\n", i,
             im->arch ? im->arch
                      : im->has_info ? "(none given)" : "(no image info)",
             P(im->end - im->start), P(im->start), P(im->end));
      if (d->asked)
        printf("    runs on: %s%s\n", im->plugin ? "plugin " : "",
               im->plugin ? im->plugin : "no plugin of this build can run it");
      text_container("    ", &im->container);
      text_dev("    ", &im->dev);
      text_pairing(d, &im->dev);
      for (size_t j = 0; j < im->nsizediff; j++)
        if (im->sizediff[j].kernel)
          printf("    warning: host entry %s is the entry of a kernel (this "
                 "image defines it as a function) with a size field of %lu, "
                 "where 0 is expected (a damaged entry table?)\n",
                 im->sizediff[j].name, P(im->sizediff[j].host));
        else
          printf("    warning: declare target variable %s is %lu bytes on "
                 "the host and %lu bytes in this image (ompemu's runtime "
                 "warns at registration; copies move the host's size)\n",
                 im->sizediff[j].name, P(im->sizediff[j].host),
                 P(im->sizediff[j].dev));
    }
    if (d->asked && d->nclaimed == 0)
      printf("  no device can run its target regions: %s; ompemu's runtime "
             "stops the program when it registers them (exit status 125)\n",
             d->refused ? d->refused : "");
  }
  if (r->has_bare)
    text_dev("", &r->bare);
  text_notes("", &r->notes);
}

/* ------------------------------------------------------------------ JSON */

static void jstr(const char *s) {
  if (!s) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      printf("\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f)
      printf("\\u%04x", *p);
    else
      putchar(*p);
  }
  putchar('"');
}

static void jaddr(uint64_t a) { printf("\"0x%016lx\"", P(a)); }

static void jstrings(char *const *v, size_t n) {
  putchar('[');
  for (size_t i = 0; i < n; i++) {
    if (i)
      putchar(',');
    jstr(v[i]);
  }
  putchar(']');
}

static void jentries(const struct dump_entry *e, size_t n, int device) {
  char fw[64];
  putchar('[');
  for (size_t i = 0; i < n; i++) {
    printf("%s{\"index\":%zu,\"name\":", i ? "," : "", i);
    jstr(e[i].name);
    printf(",\"kind\":");
    jstr(dump_entry_kind(&e[i]));
    printf(",\"flags\":%d,\"flag_words\":", e[i].flags);
    jstr(flag_words(e[i].flags, fw, sizeof(fw)));
    printf(",\"size\":%lu,\"format\":%d,\"data\":%lu,\"addr\":",
           P(e[i].size), e[i].format, P(e[i].data));
    jaddr(e[i].addr);
    printf(",\"symbol\":");
    jstr(e[i].symbol);
    printf(",\"import\":");
    jstr(e[i].import);
    if (device && e[i].exported >= 0)
      printf(",\"exported\":%s", e[i].exported ? "true" : "false");
    putchar('}');
  }
  putchar(']');
}

static void jcontainer(const struct dump_container *c) {
  if (!c->present) {
    fputs("null", stdout);
    return;
  }
  printf("{\"around\":%s,\"addr\":", c->around ? "true" : "false");
  jaddr(c->addr);
  printf(",\"version\":%u,\"size\":%lu,\"image_kind\":", c->version,
         P(c->size));
  jstr(rt_image_kind_name(c->image_kind));
  printf(",\"offload_kind\":");
  jstr(rt_offload_kind_name(c->offload_kind));
  printf(",\"flags\":%u,\"triple\":", c->flags);
  jstr(c->triple);
  printf(",\"arch\":");
  jstr(c->arch);
  printf(",\"image_offset\":%lu,\"image_size\":%lu}", P(c->code_offset),
         P(c->code_size));
}

static void jdev(const struct dump_devimage *d) {
  printf("{\"is_elf\":%s", d->is_elf ? "true" : "false");
  if (d->is_elf) {
    printf(",\"class\":%d,\"machine\":%u,\"machine_name\":", d->elf_class,
           d->machine);
    jstr(dump_machine_name(d->machine));
    printf(",\"type\":");
    jstr(dump_type_name(d->type));
  }
  printf(",\"has_entries_section\":%s,\"entries_section\":",
         d->has_entries ? "true" : "false");
  jstr(d->entries_section);
  printf(",\"entries_format\":%d,\"entries_skipped\":", d->entries_format);
  jstr(d->skipped);
  printf(",\"entries\":");
  jentries(d->entries, d->nentries, 1);
  printf(",\"needed\":");
  jstrings(d->needed, d->nneeded);
  printf(",\"undefined\":");
  jstrings(d->undef, d->nundef);
  printf(",\"notes\":");
  jstrings(d->notes.msgs, d->notes.n);
  putchar('}');
}

void dump_print_json(const struct dump_report *r) {
  printf("{\"file\":");
  jstr(r->file);
  printf(",\"kind\":");
  jstr(r->kind);
  if (r->is_elf) {
    printf(",\"machine\":%u,\"type\":", r->machine);
    jstr(dump_type_name(r->type));
  }
  if (r->entries_section) {
    printf(",\"entries_section\":{\"name\":");
    jstr(r->entries_name);
    printf(",\"format\":%d,\"begin\":", r->entries_format);
    jaddr(r->sec_begin);
    printf(",\"end\":");
    jaddr(r->sec_end);
    putchar('}');
  }
  printf(",\"descriptors\":[");
  for (size_t k = 0; k < r->ndescs; k++) {
    const struct dump_desc *d = &r->descs[k];
    printf("%s{\"addr\":", k ? "," : "");
    jaddr(d->addr);
    printf(",\"found_by\":");
    jstr(d->how);
    printf(",\"num_images\":%d,\"images_addr\":", d->num_images);
    jaddr(d->images_addr);
    printf(",\"host_entries_begin\":");
    jaddr(d->host_begin);
    printf(",\"host_entries_end\":");
    jaddr(d->host_end);
    printf(",\"host_entries_begin_symbol\":");
    jstr(d->host_begin_sym);
    printf(",\"host_entries_end_symbol\":");
    jstr(d->host_end_sym);
    printf(",\"host_entries_format\":%d,\"host_entries\":",
           d->host_format ? d->host_format : 32);
    jentries(d->host, d->nhost, 0);
    printf(",\"images\":[");
    for (size_t i = 0; i < d->nimages; i++) {
      const struct dump_image *im = &d->images[i];
      printf("%s{\"index\":%zu,\"arch\":", i ? "," : "", i);
      jstr(im->arch);
      printf(",\"has_image_info\":%s,", im->has_info ? "true" : "false");
      if (d->asked) {
        printf("\"plugin\":");
        jstr(im->plugin);
        putchar(',');
      }
      printf("\"start\":");
      jaddr(im->start);
      printf(",\"size\":%lu,\"container\":", P(im->end - im->start));
      jcontainer(&im->container);
      printf(",\"image\":");
      jdev(&im->dev);
      printf(",\"size_mismatches\":[");
      for (size_t j = 0; j < im->nsizediff; j++) {
        printf("%s{\"name\":", j ? "," : "");
        jstr(im->sizediff[j].name);
        printf(",\"host_size\":%lu,\"device_size\":%lu,\"kernel\":%s}",
               P(im->sizediff[j].host), P(im->sizediff[j].dev),
               im->sizediff[j].kernel ? "true" : "false");
      }
      putchar(']');
      if (im->dev.has_entries && !im->dev.skipped) {
        printf(",\"pairing\":{\"by_name\":[");
        for (size_t h = 0; h < d->nhost; h++)
          printf("%s%ld", h ? "," : "", by_name(&d->host[h], &im->dev));
        printf("],\"by_position_differs\":[");
        for (size_t h = 0; h < d->nhost; h++)
          printf("%s%s", h ? "," : "",
                 position_differs(d, h, &im->dev) ? "true" : "false");
        printf("]}");
      }
      putchar('}');
    }
    putchar(']');
    if (d->asked) {
      printf(",\"runnable\":%s,\"refused\":", d->nclaimed ? "true"
                                                             : "false");
      jstr(d->refused);
    }
    putchar('}');
  }
  putchar(']');
  if (r->has_bare) {
    printf(",\"device_image\":");
    jdev(&r->bare);
  }
  printf(",\"notes\":");
  jstrings(r->notes.msgs, r->notes.n);
  printf("}\n");
}
