/* ompemu-dump: what it finds in a fat binary (descriptors, images, host
 * entries) or in a bare device image (entries, what it needs from the
 * device runtime), collected first and printed afterwards as text or
 * JSON.  Anything it could not read becomes a note, never a crash. */
#ifndef OMPEMU_DUMP_H
#define OMPEMU_DUMP_H

#include <gelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

struct ev;

struct dump_notes {
  char **msgs;
  size_t n;
};
/* Record a note about something that could not be read or understood. */
void dump_note(struct dump_notes *notes, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct dump_entry {
  uint64_t addr;
  char *name;           /* NULL if unreadable */
  char *import;         /* addr comes from this undefined symbol */
  char *symbol;         /* symbol defined at addr, if any */
  uint64_t size;
  int32_t flags, reserved;
  int exported;         /* device: 1/0 = dynsym defines name; -1 n/a */
  int format;           /* 32 (__tgt_offload_entry) or 56 (llvm_offload_entries) */
  uint64_t data;        /* requires bits (56: Data; 32: reserved) */
  uint16_t version;     /* 56: Version; 32: 0 */
  uint16_t okind;       /* 56: Kind (1 OpenMP); 32: 1 */
};

/* The container a device image came in (OffloadBinary, clang 16+). */
struct dump_container {
  int present;          /* 0: a raw ELF with no container around it */
  int around;           /* 1: ImageStart points INTO the container
                           (clang 19/22); 0: at it (clang 16) */
  uint64_t addr;        /* the container's address in the file */
  uint32_t version;
  uint64_t size;
  uint16_t image_kind, offload_kind;
  uint32_t flags;
  char *triple, *arch;  /* NULL when absent */
  uint64_t code_offset, code_size; /* the image inside */
};

/* One device image: a bare file or an embedded one. */
struct dump_devimage {
  int is_elf;
  int elf_class;        /* 32 / 64 */
  unsigned machine, type;
  int has_entries;      /* has an omp_offloading_entries or
                           llvm_offload_entries section */
  const char *entries_section; /* which one */
  int entries_format;   /* 32 or 56 */
  const char *skipped;  /* why its entries were not read (not an error) */
  struct dump_entry *entries;
  size_t nentries;
  char **needed;        /* DT_NEEDED */
  size_t nneeded;
  char **undef;         /* undefined dynamic symbols ("name" or "name (weak)") */
  size_t nundef;
  char **defined;       /* defined dynamic symbols, sorted (for dlsym) */
  size_t ndefined;
  struct dump_notes notes;
};

/* A declare-target variable an image defines with another size than its
 * host entry gives (src/runtime/global_sizes.c warns at registration). */
struct dump_size_diff {
  char *name;
  uint64_t host, dev;
  int kernel; /* the image defines it as a function: a kernel's entry */
};

struct dump_image {
  uint64_t start, end;
  struct dump_container container;
  char *arch;           /* from the image info, or NULL */
  int has_info;
  uint64_t entries_begin, entries_end;
  struct dump_devimage dev;
  char *plugin;         /* the plugin a run would give it (runnable.c), or
                           NULL: none, or not asked */
  struct dump_size_diff *sizediff;
  size_t nsizediff;
};

struct dump_desc {
  uint64_t addr;
  const char *how;      /* "symbol .omp_offloading.descriptor" / "scan" */
  int32_t num_images;
  uint64_t images_addr, host_begin, host_end;
  const char *host_begin_sym; /* object files: the undefined bound symbols */
  const char *host_end_sym;
  struct dump_image *images;
  size_t nimages;
  struct dump_entry *host;
  size_t nhost;
  int host_format;      /* 32 or 56 */
  int asked;            /* runnable.c asked this build's runtime */
  int nclaimed;         /* images a plugin would claim */
  char *refused;        /* none: the runtime's reason, as it stops the run */
};

struct dump_report {
  const char *file;
  const char *kind;     /* "fat binary", "device image", ... */
  int is_elf;
  unsigned machine, type;
  struct dump_desc *descs;
  size_t ndescs;
  int entries_section;  /* host file has an entries section */
  const char *entries_name; /* omp_offloading_entries / llvm_offload_entries */
  int entries_format;   /* 32 or 56 */
  uint64_t sec_begin, sec_end;
  struct dump_devimage bare; /* when kind is "device image" */
  int has_bare;
  struct dump_notes notes;
};

/* fatbin.c: find descriptors in V and fill REP; 0 if any was found. */
int dump_fatbin(struct ev *v, struct dump_report *rep);
/* devimage.c: describe the image BYTES[0..LEN) into OUT. */
void dump_devimage(const void *bytes, size_t len, struct dump_devimage *out);
/* devimage.c: describe an already opened view (bare device image). */
void dump_devimage_view(struct ev *v, struct dump_devimage *out);
/* devimage.c: read COUNT 32-byte entries at VADDR of V. */
struct dump_entry *dump_read_entries(struct ev *v, uint64_t vaddr,
                                     size_t count, int device,
                                     struct dump_notes *notes);
/* devimage.c: the same for entries of FORMAT (32 or 56 bytes). */
struct dump_entry *dump_read_entries_fmt(struct ev *v, uint64_t vaddr,
                                         size_t count, int format,
                                         int device, struct dump_notes *notes);
/* devimage.c: the layout (32 or 56) and entry count of the table of BYTES
 * bytes at VADDR, from its contents (src/runtime/entry_table.c's rule);
 * a table that fits neither is noted and read as 32-byte entries. */
int dump_entries_layout(struct ev *v, uint64_t vaddr, uint64_t bytes,
                        size_t *count, struct dump_notes *notes);
/* devimage.c: the entries section of V (either name), 1 if found. */
int dump_entries_section(struct ev *v, GElf_Shdr *sh, const char **name);
/* devimage.c: describe the container around or at image IM of V. */
void dump_container_of(struct ev *v, struct dump_image *im,
                       const void *bytes, size_t len);
void dump_free_container(struct dump_container *c);
void dump_free_entries(struct dump_entry *e, size_t n);
void dump_free_devimage(struct dump_devimage *d);
/* devimage.c: does image D's .dynsym define NAME (would dlsym find it)? */
int dump_devimage_defines(const struct dump_devimage *d, const char *name);

/* runnable.c: ask this build's runtime which plugin would claim each
 * image of REP's descriptors (V: the file); a note when it cannot be
 * asked.  1 when a descriptor with images has none a plugin claims (the
 * runtime refuses such a program), else 0. */
int dump_runnable(struct ev *v, struct dump_report *rep);

/* needs.c: --needs and --defines (lines for ompemu-run), to OUT. */
int dump_needs(struct ev *v, struct dump_report *rep, FILE *out);
int dump_defines(struct ev *v, FILE *out);
/* runfacts.c: --run-facts and --run-missing (ompemu-run's checks). */
int dump_run_facts(struct ev *v, struct dump_report *rep);
int dump_run_missing(struct ev *v, struct dump_report *rep, char **libs,
                     int nlibs);

/* output.c */
const char *dump_entry_kind(const struct dump_entry *e);
const char *dump_machine_name(unsigned machine);
const char *dump_type_name(unsigned type);
void dump_print_text(const struct dump_report *rep);
void dump_print_json(const struct dump_report *rep);

#endif
