/* ompemu-wrap: what the command line asks for, and the steps that turn
 * device images into a host relocatable object
 * (docs/offload-wrapper.md, docs/design.md contract 6). */
#ifndef OMPEMU_WRAP_H
#define OMPEMU_WRAP_H

#include <stddef.h>
#include <stdint.h>

struct ow_obj;

struct wrap_image {
  const char *path;
  const char *arch; /* --offload-arch before it, or NULL */
  unsigned char *bytes;
  size_t size;
};

struct wrap_opts {
  const char *output;
  const char *target;
  int allow_non_elf;
  int help, version;
  struct wrap_image *images;
  size_t nimages;
};

/* Parse ARGV into OPTS (which the caller zeroes).  Prints a message and
 * returns -1 on a bad command line. */
int wrap_parse_args(int argc, char **argv, struct wrap_opts *opts);
void wrap_free_args(struct wrap_opts *opts);
void wrap_print_help(void);

/* Check that TRIPLE names an x86-64 Linux target.  0 or -1 (message). */
int wrap_check_target(const char *triple);

/* Read each image file and check it (ELF unless --allow-non-elf). */
int wrap_read_images(struct wrap_opts *opts);

/* Build the whole object for OPTS's images into OBJ. */
int wrap_build(struct ow_obj *obj, const struct wrap_opts *opts);

/* x86-64 code of the registration functions (x86_64.c).  REG_SYM etc. are
 * elfwriter symbol handles; INFO_SYMS has NINFO entries. */
struct wrap_code_syms {
  int desc;           /* .omp_offloading.descriptor */
  const int *infos;   /* .offload_image_info[.N] */
  size_t ninfos;
  int register_lib;   /* __tgt_register_lib (undefined) */
  int unregister_lib; /* __tgt_unregister_lib (undefined) */
  int image_info_fn;  /* __tgt_register_image_info (weak undefined) */
};
/* Emit .omp_offloading.descriptor_reg into section TEXT; returns its symbol
 * handle (a local STT_FUNC with its size) or -1; its size in *SIZE. */
int wrap_emit_reg(struct ow_obj *obj, int text, const struct wrap_code_syms *s,
                  uint64_t *size);
/* Emit .omp_offloading.descriptor_unreg into TEXT; symbol handle or -1. */
int wrap_emit_unreg(struct ow_obj *obj, int text,
                    const struct wrap_code_syms *s, uint64_t *size);
/* Emit the .eh_frame CIE and the FDEs of both functions into section EH,
 * so debuggers and unwinders can walk through them. */
int wrap_emit_unwind(struct ow_obj *obj, int eh, int reg, uint64_t reg_size,
                     int unreg, uint64_t unreg_size);

#endif
