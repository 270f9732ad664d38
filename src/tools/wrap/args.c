/* ompemu-wrap's command line: clang-offload-wrapper's options as
 * docs/offload-wrapper.md shows them (-o=FILE, --target=TRIPLE,
 * --offload-arch=ARCH before each image, --help, --version), in both the
 * "=" and the separate-argument spelling, plus --allow-non-elf. */
#include "config.h"

#include "wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wrap_print_help(void) {
  fputs(
      "NAME\n"
      "  ompemu-wrap - embed offload device images in a host object file\n"
      "\n"
      "SYNOPSIS\n"
      "  ompemu-wrap [--target=TRIPLE] -o OUT.o [--offload-arch=ARCH] IMAGE\n"
      "              [[--offload-arch=ARCH] IMAGE]...\n"
      "\n"
      "DESCRIPTION\n"
      "  Writes an ELF64 x86-64 relocatable object that embeds each IMAGE and\n"
      "  registers them with the offload runtime (libomptarget) when the\n"
      "  program or shared library it is linked into starts, as clang's\n"
      "  clang-offload-wrapper does.  Link OUT.o with the host objects whose\n"
      "  offload entries sit in section omp_offloading_entries; link one\n"
      "  wrapper object per executable or shared library (each gets its own\n"
      "  descriptor over its own entries).\n"
      "\n"
      "  OUT.o holds: the images (.omp_offloading.device_image[.N], .rodata);\n"
      "  the __tgt_device_image array (.omp_offloading.device_images) and the\n"
      "  __tgt_bin_desc (.omp_offloading.descriptor) in .data.rel.ro, both\n"
      "  pointing at __start_/__stop_omp_offloading_entries; the zero-sized\n"
      "  __dummy.omp_offloading.entry in omp_offloading_entries; the arch\n"
      "  strings __offload_arch[.N] (.offload_arch_list) and the\n"
      "  __tgt_image_info objects .offload_image_info[.N]; the constructor\n"
      "  .omp_offloading.descriptor_reg (.text.startup, run from\n"
      "  .init_array.1) that calls __tgt_register_image_info for each image\n"
      "  (a weak reference: skipped when the runtime lacks it, as LLVM 14's\n"
      "  does) and then __tgt_register_lib; and the destructor\n"
      "  .omp_offloading.descriptor_unreg (.fini_array.1) that calls\n"
      "  __tgt_unregister_lib; .eh_frame describes both for unwinders.\n"
      "\n"
      "OPTIONS\n"
      "  -o OUT.o, -o=OUT.o       output object (required); written to a\n"
      "                           temporary file and renamed, so a failed run\n"
      "                           never leaves a partial OUT.o\n"
      "  --target=TRIPLE, -target TRIPLE\n"
      "                           host triple; only x86_64 Linux triples\n"
      "                           (default x86_64-pc-linux-gnu)\n"
      "  --offload-arch=ARCH      target id of the IMAGE that follows (e.g.\n"
      "                           x86-64, gfx906, sm_70); without it the\n"
      "                           image's info has a NULL offload_arch\n"
      "  --allow-non-elf          accept images that are not ELF files (by\n"
      "                           default they are refused)\n"
      "  --help                   show this text\n"
      "  --version                show the version\n"
      "\n"
      "EXIT STATUS\n"
      "  0 on success; 1 on any error (missing or unreadable image, non-ELF\n"
      "  image, no images, unsupported target, unwritable output).\n"
      "\n"
      "EXAMPLE\n"
      "  cc -shared -fPIC -o dev.so device.c\n"
      "  ompemu-wrap --target=x86_64-pc-linux-gnu -o wrap.o \\\n"
      "      --offload-arch=x86-64 dev.so\n"
      "  cc -o prog host.c wrap.o -lomptarget\n",
      stdout);
}

/* If ARG is OPT or OPT=VALUE (also with one dash less), return the value:
 * the part after '=' or the next argument (advancing *I).  NULL if ARG is
 * not this option; *MISSING set when the value is absent. */
static const char *opt_value(const char *arg, const char *opt, int argc,
                             char **argv, int *i, int *missing) {
  const char *names[2] = {opt, opt + 1}; /* "--x" and "-x" */
  for (int k = 0; k < 2; k++) {
    size_t len = strlen(names[k]);
    if (strncmp(arg, names[k], len) != 0)
      continue;
    if (arg[len] == '=')
      return arg + len + 1;
    if (arg[len] == '\0') {
      if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
      }
      return argv[++*i];
    }
  }
  return NULL;
}

static int add_image(struct wrap_opts *o, const char *path, const char *arch) {
  struct wrap_image *n =
      realloc(o->images, (o->nimages + 1) * sizeof(*o->images));
  if (!n) {
    fprintf(stderr, "ompemu-wrap: error: out of memory\n");
    return -1;
  }
  o->images = n;
  memset(&n[o->nimages], 0, sizeof(*n));
  n[o->nimages].path = path;
  n[o->nimages].arch = arch;
  o->nimages++;
  return 0;
}

int wrap_parse_args(int argc, char **argv, struct wrap_opts *o) {
  const char *arch = NULL;
  int only_files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0;
    if (only_files || a[0] != '-' || a[1] == '\0') {
      if (add_image(o, a, arch))
        return -1;
      arch = NULL;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      only_files = 1;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-help") ||
               !strcmp(a, "-h")) {
      o->help = 1;
    } else if (!strcmp(a, "--version") || !strcmp(a, "-version")) {
      o->version = 1;
    } else if (!strcmp(a, "--allow-non-elf")) {
      o->allow_non_elf = 1;
    } else if ((v = opt_value(a, "--o", argc, argv, &i, &missing)) ||
               missing) {
      if (missing)
        goto need_value;
      o->output = v;
    } else if ((v = opt_value(a, "--target", argc, argv, &i, &missing)) ||
               missing) {
      if (missing)
        goto need_value;
      o->target = v;
    } else if ((v = opt_value(a, "--offload-arch", argc, argv, &i,
                              &missing)) ||
               missing) {
      if (missing)
        goto need_value;
      if (*v == '\0') {
        fprintf(stderr, "ompemu-wrap: error: empty --offload-arch\n");
        return -1;
      }
      if (arch)
        fprintf(stderr,
                "ompemu-wrap: warning: --offload-arch=%s replaced by "
                "--offload-arch=%s before the same image\n",
                arch, v);
      arch = v;
    } else if (!strncmp(a, "-o", 2) && a[2] != '\0') {
      o->output = a + 2; /* -oFILE */
    } else {
      fprintf(stderr,
              "ompemu-wrap: error: unknown option '%s' (see ompemu-wrap "
              "--help)\n",
              a);
      return -1;
    }
    continue;
  need_value:
    fprintf(stderr, "ompemu-wrap: error: option '%s' needs a value\n", a);
    return -1;
  }
  if (o->help || o->version)
    return 0;
  if (arch) {
    fprintf(stderr,
            "ompemu-wrap: error: --offload-arch=%s is not followed by an "
            "image\n",
            arch);
    return -1;
  }
  if (!o->output || !*o->output) {
    fprintf(stderr, "ompemu-wrap: error: no output file (use -o OUT.o)\n");
    return -1;
  }
  if (o->nimages == 0) {
    fprintf(stderr, "ompemu-wrap: error: no device images given\n");
    return -1;
  }
  return 0;
}

void wrap_free_args(struct wrap_opts *o) {
  for (size_t i = 0; i < o->nimages; i++)
    free(o->images[i].bytes);
  free(o->images);
  o->images = NULL;
  o->nimages = 0;
}

int wrap_check_target(const char *triple) {
  if (!triple)
    return 0;
  /* arch[-vendor]-os[-env]; the arch must be x86_64 and the OS Linux. */
  size_t alen = strcspn(triple, "-");
  int x86 = (alen == 6 && !strncmp(triple, "x86_64", 6)) ||
            (alen == 5 && !strncmp(triple, "amd64", 5));
  int linux_os = triple[alen] == '\0' || strstr(triple, "-linux") != NULL;
  if (x86 && linux_os)
    return 0;
  fprintf(stderr,
          "ompemu-wrap: error: target '%s' is not supported: ompemu-wrap "
          "writes ELF64 x86-64 Linux objects only (e.g. "
          "--target=x86_64-pc-linux-gnu)\n",
          triple);
  return -1;
}
