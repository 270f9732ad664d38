/* ompemu-dump: command line, file reading, and the choice between a fat
 * binary (has a descriptor) and a bare device image (has only its own
 * entries table); --needs, --defines, --run-facts and --run-missing print
 * lines for ompemu-run instead.
 * Exit status: 0 read completely, 1 cannot read the file at all, 2 read in
 * part (the notes say what was not understood), 3 no plugin of this build
 * can run a descriptor's images (runnable.c). */
#include "config.h"

#include "../common/readfile.h"
#include "dump.h"
#include "elfview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(void) {
  fputs(
      "NAME\n"
      "  ompemu-dump - show the offload contents of a fat binary or a device "
      "image\n"
      "\n"
      "SYNOPSIS\n"
      "  ompemu-dump [--json] FILE\n"
      "  ompemu-dump --needs FILE\n"
      "  ompemu-dump --defines FILE\n"
      "  ompemu-dump --run-facts FILE\n"
      "  ompemu-dump --run-missing FILE NAME=LIB...\n"
      "\n"
      "DESCRIPTION\n"
      "  For an executable or shared library built with offloading by clang\n"
      "  14, 16, 19 or 22 or flang 22, or linked with an ompemu-wrap object:\n"
      "  each descriptor (by the symbol .omp_offloading.descriptor, or by\n"
      "  scanning data for a __tgt_bin_desc whose host entries are the entries\n"
      "  section), its host entries (32-byte omp_offloading_entries of clang\n"
      "  14-19, or 56-byte llvm_offload_entries of clang 22 and flang 22: name,\n"
      "  kind (kernel, variable, link, ctor, dtor, indirect function, vtable,\n"
      "  requires with its clauses), flags as words LINK/CTOR/DTOR/FPTR/\n"
      "  REQUIRES/VTABLE, size, address), and each image: how it is stored\n"
      "  (raw ELF; an OffloadBinary container, clang 16; raw ELF inside one,\n"
      "  clang 19+, with the container's version, kinds, triple and arch),\n"
      "  arch (from ompemu-wrap's image info), size,\n"
      "  ELF machine and type, its own device entries (marked when .dynsym\n"
      "  lacks the name, as a by-name lookup would), the libraries it needs\n"
      "  and the symbols it leaves undefined for the device runtime, and how\n"
      "  host and device entries pair: by name (ompemu) and by position\n"
      "  (LLVM 14's x86_64 plugin, which a declare-target-link entry breaks).\n"
      "  For a bare device image: the same device-side information.\n"
      "  For a relocatable object: the wrapper's descriptor and images (an\n"
      "  ompemu-wrap or clang-offload-wrapper output), or the object's own\n"
      "  entries table; section N's offsets are shown as N << 40 + offset.\n"
      "  Pointers are read as the dynamic loader would set them (RELATIVE,\n"
      "  64, GLOB_DAT relocations applied).  What cannot be read is reported\n"
      "  as a note.\n"
      "\n"
      "OPTIONS\n"
      "  --json      one JSON object instead of text\n"
      "  --needs     one line per fact the dynamic loader will use, for\n"
      "              scripts (ompemu-run): interp, needed, rpath, runpath,\n"
      "              flags, and \"undef NAME VERSION LIBRARY strong|weak\" for\n"
      "              each undefined dynamic symbol (\"-\" = none); then the\n"
      "              same for each embedded device image, prefixed \"image N\"\n"
      "              (with \"image N format elf|offload-binary\", or\n"
      "              \"image N error REASON\")\n"
      "  --defines   \"def NAME VERSION\" for each dynamic symbol FILE defines\n"
      "  --run-facts, --run-missing\n"
      "              ompemu-run's checks, from the lines of --needs and\n"
      "              --defines: what the loader and the device images of\n"
      "              FILE need (shell assignments), and the first of the\n"
      "              libraries NAME (the file LIB) lacking symbols FILE\n"
      "              needs from it\n"
      "  --help      show this text\n"
      "  --version   show the version\n"
      "\n"
      "  For a fat binary, each image also shows the plugin of this build\n"
      "  that a run would give it, as this build's runtime decides\n"
      "  (OMPEMU_PLUGINS is honoured), or that none can run it.\n"
      "\n"
      "EXIT STATUS\n"
      "  0 everything was read; 1 the file cannot be read or is not ELF64;\n"
      "  2 read in part, or no offload data found (see the notes);\n"
      "  3 a descriptor has device images and no plugin of this build can\n"
      "    run any of them: ompemu's runtime stops such a program when it\n"
      "    registers them (exit status 125).\n",
      stdout);
}

static void free_report(struct dump_report *r) {
  for (size_t k = 0; k < r->ndescs; k++) {
    struct dump_desc *d = &r->descs[k];
    dump_free_entries(d->host, d->nhost);
    for (size_t i = 0; i < d->nimages; i++) {
      free(d->images[i].arch);
      free(d->images[i].plugin);
      for (size_t j = 0; j < d->images[i].nsizediff; j++)
        free(d->images[i].sizediff[j].name);
      free(d->images[i].sizediff);
      dump_free_container(&d->images[i].container);
      dump_free_devimage(&d->images[i].dev);
    }
    free(d->images);
    free(d->refused);
  }
  free(r->descs);
  if (r->has_bare)
    dump_free_devimage(&r->bare);
  for (size_t i = 0; i < r->notes.n; i++)
    free(r->notes.msgs[i]);
  free(r->notes.msgs);
}

/* Did anything note a problem? */
static int partial(const struct dump_report *r) {
  if (r->notes.n || (r->has_bare && r->bare.notes.n))
    return 1;
  for (size_t k = 0; k < r->ndescs; k++)
    for (size_t i = 0; i < r->descs[k].nimages; i++)
      if (r->descs[k].images[i].dev.notes.n)
        return 1;
  return 0;
}

int main(int argc, char **argv) {
  const char *file = NULL;
  int json = 0, needs = 0, defines = 0, facts = 0, missing = 0;
  char **libs = NULL;
  int nlibs = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "--run-facts"))
      facts = 1;
    else if (!strcmp(argv[i], "--run-missing"))
      missing = 1;
    else if (!strcmp(argv[i], "--needs"))
      needs = 1;
    else if (!strcmp(argv[i], "--defines"))
      defines = 1;
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      help();
      return 0;
    } else if (!strcmp(argv[i], "--version")) {
      printf("ompemu-dump (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
      return 0;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      fprintf(stderr, "ompemu-dump: error: unknown option '%s' (see "
              "ompemu-dump --help)\n", argv[i]);
      return 1;
    } else if (file && missing && strchr(argv[i], '=')) {
      if (!libs)
        libs = argv + i;
      if (libs + nlibs != argv + i) {
        fprintf(stderr, "ompemu-dump: error: --run-missing: the NAME=LIB "
                "arguments come last ('%s')\n", argv[i]);
        return 1;
      }
      nlibs++;
    } else if (file) {
      fprintf(stderr, "ompemu-dump: error: one FILE only ('%s' and '%s')\n",
              file, argv[i]);
      return 1;
    } else {
      file = argv[i];
    }
  }
  if (!file) {
    fprintf(stderr, "ompemu-dump: error: no FILE (see ompemu-dump --help)\n");
    return 1;
  }
  if (json + needs + defines + facts + missing > 1) {
    fprintf(stderr, "ompemu-dump: error: --json, --needs, --defines, "
            "--run-facts and --run-missing exclude each other\n");
    return 1;
  }

  unsigned char *buf;
  size_t len;
  if (tool_read_file("ompemu-dump", "", file, &buf, &len))
    return 1;
  struct dump_report rep;
  memset(&rep, 0, sizeof(rep));
  rep.file = file;
  struct ev v;
  const char *why;
  int refused = 0;
  if (ev_open(&v, buf, len, &rep.notes, &why) != 0) {
    fprintf(stderr, "ompemu-dump: error: '%s': %s\n", file, why);
    free(buf);
    free_report(&rep);
    return 1;
  }
  free(buf);
  rep.is_elf = 1;
  rep.machine = v.eh.e_machine;
  rep.type = v.eh.e_type;
  if (defines || needs || facts || missing) {
    int rc = 0;
    if (defines)
      rc = dump_defines(&v, stdout);
    else {
      if (v.eh.e_type != ET_REL)
        dump_fatbin(&v, &rep); /* the images, if any */
      rc = facts     ? dump_run_facts(&v, &rep)
           : missing ? dump_run_missing(&v, &rep, libs, nlibs)
                     : dump_needs(&v, &rep, stdout);
    }
    ev_close(&v);
    free_report(&rep);
    return rc ? 2 : 0;
  }

  if (v.eh.e_type == ET_REL) {
    /* A wrapper object (its descriptor), or a host/device object with
     * entries of its own; addresses are section-relative (see elfview.h). */
    if (dump_fatbin(&v, &rep) == 0) {
      rep.kind = "relocatable object with a descriptor (wrapper)";
    } else {
      rep.kind = "relocatable object";
      rep.has_bare = 1;
      dump_devimage_view(&v, &rep.bare);
      if (!rep.bare.has_entries)
        rep.kind = "relocatable object without offload data";
    }
  } else if (dump_fatbin(&v, &rep) == 0) {
    rep.kind = v.eh.e_type == ET_EXEC ? "fat executable" : "fat binary";
    refused = dump_runnable(&v, &rep);
  } else {
    GElf_Shdr sh;
    const char *secname;
    if (dump_entries_section(&v, &sh, &secname) || v.dynsym.count) {
      rep.kind = "device image";
      rep.has_bare = 1;
      rep.entries_section = 0;
      dump_devimage_view(&v, &rep.bare);
      if (!rep.bare.has_entries)
        rep.kind = "ELF file without offload data";
    } else {
      rep.kind = "ELF file without offload data";
      dump_note(&rep.notes, "no descriptor and no omp_offloading_entries "
                "or llvm_offload_entries section found");
    }
  }
  if (rep.has_bare && !rep.bare.has_entries) {
    /* Nothing offload-related: say so instead of listing its imports. */
    dump_free_devimage(&rep.bare);
    memset(&rep.bare, 0, sizeof(rep.bare));
    rep.has_bare = 0;
    dump_note(&rep.notes, "no descriptor and no omp_offloading_entries "
              "or llvm_offload_entries section found");
  }
  if (json)
    dump_print_json(&rep);
  else
    dump_print_text(&rep);
  int rc = refused ? 3 : partial(&rep) ? 2 : 0;
  ev_close(&v);
  free_report(&rep);
  return rc;
}
