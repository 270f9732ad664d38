/* The wrapper object's layout (docs/offload-wrapper.md "Global
 * Variables", corrected by docs/design.md contract 6): images in .rodata, the
 * image array, descriptor and image infos in .data.rel.ro, the arch strings
 * in .offload_arch_list, only the zero-sized dummy entry in
 * omp_offloading_entries, and the registration functions in .text.startup
 * called from .init_array.1 / .fini_array.1 (priority 1, as clang 14). */
#include "config.h"

#include "elfwriter.h"
#include "wrap.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompemu/abi.h>

/* NAME for image I: BASE for the first, BASE.I after it. */
static void indexed(char *buf, size_t len, const char *base, size_t i) {
  if (i == 0)
    snprintf(buf, len, "%s", base);
  else
    snprintf(buf, len, "%s.%zu", base, i);
}

/* A pointer-sized slot at OFF of SEC that the linker fills with SYM+ADD. */
static int ptr64(struct ow_obj *obj, int sec, uint64_t off, int sym,
                 int64_t add) {
  return ow_reloc(obj, sec, off, R_X86_64_64, sym, add);
}

int wrap_build(struct ow_obj *obj, const struct wrap_opts *opts) {
  size_t n = opts->nimages;
  char name[64];
  int *img_syms = calloc(n, sizeof(int));
  int *info_syms = calloc(n, sizeof(int));
  int rc = -1;
  if (!img_syms || !info_syms)
    goto out;

  int text = ow_section(obj, ".text.startup", SHT_PROGBITS,
                        SHF_ALLOC | SHF_EXECINSTR, 16);
  int rodata = ow_section(obj, ".rodata", SHT_PROGBITS, SHF_ALLOC, 16);
  int relro = ow_section(obj, ".data.rel.ro", SHT_PROGBITS,
                         SHF_ALLOC | SHF_WRITE, 16);
  int archs = ow_section(obj, ".offload_arch_list", SHT_PROGBITS, SHF_ALLOC, 1);
  int entries = ow_section(obj, "omp_offloading_entries", SHT_PROGBITS,
                           SHF_ALLOC | SHF_WRITE, 8);
  int init = ow_section(obj, ".init_array.1", SHT_INIT_ARRAY,
                        SHF_ALLOC | SHF_WRITE, 8);
  int fini = ow_section(obj, ".fini_array.1", SHT_FINI_ARRAY,
                        SHF_ALLOC | SHF_WRITE, 8);
  int note = ow_section(obj, ".note.GNU-stack", SHT_PROGBITS, 0, 1);
  int eh = ow_section(obj, ".eh_frame", SHT_X86_64_UNWIND, SHF_ALLOC, 8);
  if (text < 0 || rodata < 0 || relro < 0 || archs < 0 || entries < 0 ||
      init < 0 || fini < 0 || note < 0 || eh < 0)
    goto out;

  /* The images, each 16-byte aligned so an ELF image's headers are
   * naturally aligned where they sit. */
  for (size_t i = 0; i < n; i++) {
    uint64_t off;
    if (ow_append(obj, rodata, opts->images[i].bytes, opts->images[i].size, 16,
                  &off))
      goto out;
    indexed(name, sizeof(name), ".omp_offloading.device_image", i);
    img_syms[i] = ow_symbol(obj, name, STB_LOCAL, STT_OBJECT, STV_DEFAULT,
                            rodata, off, opts->images[i].size);
    if (img_syms[i] < 0)
      goto out;
  }

  /* Bounds of the host entries: defined by the linker because the dummy
   * below puts a (possibly empty) section of that name in the output. */
  int start = ow_symbol(obj, "__start_omp_offloading_entries", STB_GLOBAL,
                        STT_NOTYPE, STV_HIDDEN, -1, 0, 0);
  int stop = ow_symbol(obj, "__stop_omp_offloading_entries", STB_GLOBAL,
                       STT_NOTYPE, STV_HIDDEN, -1, 0, 0);
  if (start < 0 || stop < 0 ||
      ow_symbol(obj, "__dummy.omp_offloading.entry", STB_GLOBAL, STT_OBJECT,
                STV_HIDDEN, entries, 0, 0) < 0)
    goto out;

  /* __tgt_device_image[N]: {image, image + size, start, stop}. */
  uint64_t arr;
  if (ow_append(obj, relro, NULL, n * sizeof(__tgt_device_image), 16, &arr))
    goto out;
  for (size_t i = 0; i < n; i++) {
    uint64_t at = arr + i * sizeof(__tgt_device_image);
    if (ptr64(obj, relro, at + offsetof(__tgt_device_image, ImageStart),
              img_syms[i], 0) ||
        ptr64(obj, relro, at + offsetof(__tgt_device_image, ImageEnd),
              img_syms[i], (int64_t)opts->images[i].size) ||
        ptr64(obj, relro, at + offsetof(__tgt_device_image, EntriesBegin),
              start, 0) ||
        ptr64(obj, relro, at + offsetof(__tgt_device_image, EntriesEnd), stop,
              0))
      goto out;
  }
  int images_sym = ow_symbol(obj, ".omp_offloading.device_images", STB_LOCAL,
                             STT_OBJECT, STV_DEFAULT, relro, arr,
                             n * sizeof(__tgt_device_image));
  if (images_sym < 0)
    goto out;

  /* __tgt_bin_desc: {N, images, start, stop}. */
  __tgt_bin_desc d;
  memset(&d, 0, sizeof(d));
  d.NumDeviceImages = (int32_t)n;
  uint64_t doff;
  if (ow_append(obj, relro, &d, sizeof(d), 16, &doff) ||
      ptr64(obj, relro, doff + offsetof(__tgt_bin_desc, DeviceImages),
            images_sym, 0) ||
      ptr64(obj, relro, doff + offsetof(__tgt_bin_desc, HostEntriesBegin),
            start, 0) ||
      ptr64(obj, relro, doff + offsetof(__tgt_bin_desc, HostEntriesEnd), stop,
            0))
    goto out;
  int desc_sym = ow_symbol(obj, ".omp_offloading.descriptor", STB_LOCAL,
                           STT_OBJECT, STV_DEFAULT, relro, doff, sizeof(d));
  if (desc_sym < 0)
    goto out;

  /* Per image: the arch string (when given) and __tgt_image_info
   * {1, i, N, arch or NULL, NULL}. */
  for (size_t i = 0; i < n; i++) {
    int arch_sym = -1;
    if (opts->images[i].arch) {
      size_t len = strlen(opts->images[i].arch) + 1;
      uint64_t aoff;
      if (ow_append(obj, archs, opts->images[i].arch, len, 1, &aoff))
        goto out;
      indexed(name, sizeof(name), "__offload_arch", i);
      arch_sym = ow_symbol(obj, name, STB_LOCAL, STT_OBJECT, STV_DEFAULT,
                           archs, aoff, len);
      if (arch_sym < 0)
        goto out;
    }
    __tgt_image_info info;
    memset(&info, 0, sizeof(info));
    info.version = 1;
    info.image_number = (int32_t)i;
    info.number_images = (int32_t)n;
    uint64_t ioff;
    if (ow_append(obj, relro, &info, sizeof(info), 8, &ioff))
      goto out;
    if (arch_sym >= 0 &&
        ptr64(obj, relro, ioff + offsetof(__tgt_image_info, offload_arch),
              arch_sym, 0))
      goto out;
    indexed(name, sizeof(name), ".offload_image_info", i);
    info_syms[i] = ow_symbol(obj, name, STB_LOCAL, STT_OBJECT, STV_DEFAULT,
                             relro, ioff, sizeof(info));
    if (info_syms[i] < 0)
      goto out;
  }

  struct wrap_code_syms cs = {
      .desc = desc_sym,
      .infos = info_syms,
      .ninfos = n,
      .register_lib = ow_symbol(obj, "__tgt_register_lib", STB_GLOBAL,
                                STT_NOTYPE, STV_DEFAULT, -1, 0, 0),
      .unregister_lib = ow_symbol(obj, "__tgt_unregister_lib", STB_GLOBAL,
                                  STT_NOTYPE, STV_DEFAULT, -1, 0, 0),
      /* Weak: LLVM 14's libomptarget has no such function. */
      .image_info_fn = ow_symbol(obj, "__tgt_register_image_info", STB_WEAK,
                                 STT_NOTYPE, STV_DEFAULT, -1, 0, 0),
  };
  if (cs.register_lib < 0 || cs.unregister_lib < 0 || cs.image_info_fn < 0)
    goto out;
  uint64_t reg_size, unreg_size;
  int reg = wrap_emit_reg(obj, text, &cs, &reg_size);
  int unreg = wrap_emit_unreg(obj, text, &cs, &unreg_size);
  if (reg < 0 || unreg < 0 ||
      wrap_emit_unwind(obj, eh, reg, reg_size, unreg, unreg_size))
    goto out;

  uint64_t ioff, foff;
  if (ow_append(obj, init, NULL, 8, 8, &ioff) ||
      ptr64(obj, init, ioff, reg, 0) ||
      ow_append(obj, fini, NULL, 8, 8, &foff) ||
      ptr64(obj, fini, foff, unreg, 0))
    goto out;
  rc = 0;
out:
  if (rc)
    fprintf(stderr, "ompemu-wrap: error: out of memory building the object\n");
  free(img_syms);
  free(info_syms);
  return rc;
}
