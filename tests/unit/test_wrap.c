/* Unit tests of ompemu-wrap's pieces: the command line (every spelling and
 * error), the target check, and the object the layout and writer produce,
 * read back with libelf: symbols, sizes, relocations, the ctor's code. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>
#include <libelf.h>

#include "../../src/tools/wrap/elfwriter.h"
#include "../../src/tools/wrap/wrap.h"

static int parse(struct wrap_opts *o, int argc, const char **argv) {
  memset(o, 0, sizeof(*o));
  return wrap_parse_args(argc, (char **)argv, o);
}

static void test_args_spellings(void **state) {
  (void)state;
  struct wrap_opts o;
  const char *a1[] = {"w", "--target=x86_64-pc-linux-gnu", "-o=out.o",
                      "--offload-arch=gfx906", "a.so", "b.so",
                      "--offload-arch", "x86-64", "c.so"};
  assert_int_equal(parse(&o, 9, a1), 0);
  assert_string_equal(o.output, "out.o");
  assert_string_equal(o.target, "x86_64-pc-linux-gnu");
  assert_int_equal(o.nimages, 3);
  assert_string_equal(o.images[0].path, "a.so");
  assert_string_equal(o.images[0].arch, "gfx906");
  assert_null(o.images[1].arch); /* an arch applies to the next image only */
  assert_string_equal(o.images[2].arch, "x86-64");
  wrap_free_args(&o);

  const char *a2[] = {"w", "-target", "x86_64-unknown-linux-gnu", "-o",
                      "x.o", "--", "-odd-name.so"};
  assert_int_equal(parse(&o, 7, a2), 0);
  assert_string_equal(o.target, "x86_64-unknown-linux-gnu");
  assert_string_equal(o.output, "x.o");
  assert_int_equal(o.nimages, 1);
  assert_string_equal(o.images[0].path, "-odd-name.so");
  wrap_free_args(&o);

  const char *a3[] = {"w", "-ox.o", "-offload-arch=sm_70", "i.bin"};
  assert_int_equal(parse(&o, 4, a3), 0);
  assert_string_equal(o.output, "x.o");
  assert_string_equal(o.images[0].arch, "sm_70");
  wrap_free_args(&o);

  const char *a4[] = {"w", "--help"};
  assert_int_equal(parse(&o, 2, a4), 0);
  assert_true(o.help);
  wrap_free_args(&o);
}

static void test_args_errors(void **state) {
  (void)state;
  struct wrap_opts o;
  const char *no_out[] = {"w", "a.so"};
  const char *no_img[] = {"w", "-o", "x.o"};
  const char *dangling[] = {"w", "-o", "x.o", "a.so", "--offload-arch=gfx9"};
  const char *no_val[] = {"w", "a.so", "-o"};
  const char *unknown[] = {"w", "--bogus", "-o", "x.o", "a.so"};
  const char *empty_arch[] = {"w", "-o", "x.o", "--offload-arch=", "a.so"};
  assert_int_equal(parse(&o, 2, no_out), -1);
  wrap_free_args(&o);
  assert_int_equal(parse(&o, 3, no_img), -1);
  wrap_free_args(&o);
  assert_int_equal(parse(&o, 5, dangling), -1);
  wrap_free_args(&o);
  assert_int_equal(parse(&o, 3, no_val), -1);
  wrap_free_args(&o);
  assert_int_equal(parse(&o, 5, unknown), -1);
  wrap_free_args(&o);
  assert_int_equal(parse(&o, 5, empty_arch), -1);
  wrap_free_args(&o);
}

static void test_target(void **state) {
  (void)state;
  assert_int_equal(wrap_check_target(NULL), 0);
  assert_int_equal(wrap_check_target("x86_64-pc-linux-gnu"), 0);
  assert_int_equal(wrap_check_target("x86_64-unknown-linux"), 0);
  assert_int_equal(wrap_check_target("x86_64"), 0);
  assert_int_equal(wrap_check_target("aarch64-linux-gnu"), -1);
  assert_int_equal(wrap_check_target("amdgcn-amd-amdhsa"), -1);
  assert_int_equal(wrap_check_target("x86_64-pc-windows-msvc"), -1);
  assert_int_equal(wrap_check_target("x86_64h-apple-darwin"), -1);
}

/* Build an object for two small fake images and open it with libelf. */
struct built {
  FILE *f;
  char *bytes;
  size_t size;
  Elf *elf;
};

static void build(struct built *b, int with_arch) {
  static unsigned char img0[100], img1[37];
  memset(img0, 0xa0, sizeof(img0));
  memset(img1, 0xb1, sizeof(img1));
  memcpy(img0, "\177ELF", 4);
  memcpy(img1, "\177ELF", 4);
  struct wrap_image images[2] = {
      {"img0", with_arch ? "gfx906" : NULL, img0, sizeof(img0)},
      {"img1", with_arch ? "x86-64" : NULL, img1, sizeof(img1)}};
  struct wrap_opts o = {.output = "mem", .images = images, .nimages = 2};
  struct ow_obj *obj = ow_new();
  assert_non_null(obj);
  assert_int_equal(wrap_build(obj, &o), 0);
  b->f = tmpfile();
  assert_non_null(b->f);
  assert_int_equal(ow_write(obj, fileno(b->f), "mem"), 0);
  ow_free(obj);
  long end = lseek(fileno(b->f), 0, SEEK_END);
  assert_true(end > 0);
  b->size = (size_t)end;
  b->bytes = malloc(b->size);
  assert_int_equal(pread(fileno(b->f), b->bytes, b->size, 0),
                   (ssize_t)b->size);
  elf_version(EV_CURRENT);
  b->elf = elf_memory(b->bytes, b->size);
  assert_non_null(b->elf);
}

static void unbuild(struct built *b) {
  elf_end(b->elf);
  free(b->bytes);
  fclose(b->f);
}

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh) {
  size_t shstrndx;
  assert_int_equal(elf_getshdrstrndx(elf, &shstrndx), 0);
  for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
    gelf_getshdr(s, sh);
    if (strcmp(elf_strptr(elf, shstrndx, sh->sh_name), name) == 0)
      return s;
  }
  return NULL;
}

/* Find symbol NAME; returns its index and fills *SYM. */
static size_t symbol(Elf *elf, const char *name, GElf_Sym *sym) {
  GElf_Shdr sh;
  Elf_Scn *s = section(elf, ".symtab", &sh);
  assert_non_null(s);
  Elf_Data *d = elf_getdata(s, NULL);
  for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
    gelf_getsym(d, (int)i, sym);
    if (strcmp(elf_strptr(elf, sh.sh_link, sym->st_name), name) == 0)
      return i;
  }
  fail_msg("symbol %s not found", name);
  return 0;
}

static void test_object_layout(void **state) {
  (void)state;
  struct built b;
  build(&b, 1);
  GElf_Ehdr eh;
  assert_non_null(gelf_getehdr(b.elf, &eh));
  assert_int_equal(eh.e_type, ET_REL);
  assert_int_equal(eh.e_machine, EM_X86_64);

  GElf_Sym s, img1, desc, arr;
  symbol(b.elf, ".omp_offloading.device_image", &s);
  assert_int_equal(s.st_size, 100);
  assert_int_equal(s.st_value % 16, 0);
  size_t img1_idx = symbol(b.elf, ".omp_offloading.device_image.1", &img1);
  assert_int_equal(img1.st_size, 37);
  assert_int_equal(img1.st_value % 16, 0);
  symbol(b.elf, ".omp_offloading.device_images", &arr);
  assert_int_equal(arr.st_size, 64);
  symbol(b.elf, ".omp_offloading.descriptor", &desc);
  assert_int_equal(desc.st_size, 32);
  symbol(b.elf, "__offload_arch.1", &s);
  assert_int_equal(s.st_size, 7);
  symbol(b.elf, "__dummy.omp_offloading.entry", &s);
  assert_int_equal(GELF_ST_VISIBILITY(s.st_other), STV_HIDDEN);
  assert_int_equal(s.st_size, 0);
  symbol(b.elf, "__tgt_register_image_info", &s);
  assert_int_equal(GELF_ST_BIND(s.st_info), STB_WEAK);
  assert_int_equal(s.st_shndx, SHN_UNDEF);

  /* Image bytes where the symbols say; the descriptor's image count. */
  GElf_Shdr rod, relro;
  Elf_Scn *rs = section(b.elf, ".rodata", &rod);
  assert_non_null(rs);
  const unsigned char *rbytes = (unsigned char *)b.bytes + rod.sh_offset;
  assert_memory_equal(rbytes + img1.st_value, "\177ELF", 4);
  assert_int_equal(rbytes[img1.st_value + 36], 0xb1);
  assert_non_null(section(b.elf, ".data.rel.ro", &relro));
  int32_t num;
  memcpy(&num, b.bytes + relro.sh_offset + desc.st_value, 4);
  assert_int_equal(num, 2);

  /* Image 1's ImageEnd: R_X86_64_64 against image 1 + 37. */
  GElf_Shdr rsh;
  Elf_Scn *rel = section(b.elf, ".rela.data.rel.ro", &rsh);
  assert_non_null(rel);
  Elf_Data *d = elf_getdata(rel, NULL);
  int found = 0;
  for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
    GElf_Rela r;
    gelf_getrela(d, (int)i, &r);
    if (r.r_offset == arr.st_value + 32 + 8) {
      assert_int_equal(GELF_R_TYPE(r.r_info), R_X86_64_64);
      assert_int_equal(GELF_R_SYM(r.r_info), img1_idx);
      assert_int_equal(r.r_addend, 37);
      found = 1;
    }
  }
  assert_true(found);

  /* The ctor's code: push rbx; mov GOT; test; je over 2 x (lea; call *rbx). */
  GElf_Shdr tsh;
  assert_non_null(section(b.elf, ".text.startup", &tsh));
  const unsigned char *code = (unsigned char *)b.bytes + tsh.sh_offset;
  static const unsigned char head[] = {0x53, 0x48, 0x8b, 0x1d};
  assert_memory_equal(code, head, sizeof(head));
  int32_t skip;
  memcpy(&skip, code + 13, 4);
  assert_int_equal(skip, 2 * 9); /* two lea+call pairs of 9 bytes */
  unbuild(&b);
}

static void test_object_without_arch(void **state) {
  (void)state;
  struct built b;
  build(&b, 0);
  GElf_Sym s;
  symbol(b.elf, ".offload_image_info.1", &s);
  GElf_Shdr relro;
  assert_non_null(section(b.elf, ".data.rel.ro", &relro));
  int32_t info[3];
  memcpy(info, b.bytes + relro.sh_offset + s.st_value, sizeof(info));
  assert_int_equal(info[0], 1); /* version */
  assert_int_equal(info[1], 1); /* image_number */
  assert_int_equal(info[2], 2); /* number_images */
  uint64_t arch;
  memcpy(&arch, b.bytes + relro.sh_offset + s.st_value + 16, 8);
  assert_int_equal(arch, 0); /* NULL, and no relocation gives it a value: */
  GElf_Shdr rsh;
  Elf_Scn *rel = section(b.elf, ".rela.data.rel.ro", &rsh);
  assert_non_null(rel);
  Elf_Data *d = elf_getdata(rel, NULL);
  for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
    GElf_Rela r;
    gelf_getrela(d, (int)i, &r);
    assert_true(r.r_offset != s.st_value + 16);
  }
  unbuild(&b);
}

static void test_writer_bounds(void **state) {
  (void)state;
  struct ow_obj *obj = ow_new();
  int sec = ow_section(obj, ".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8);
  uint64_t off;
  assert_int_equal(ow_append(obj, sec, "abc", 3, 1, &off), 0);
  assert_int_equal(ow_append(obj, sec, "x", 1, 8, &off), 0);
  assert_int_equal(off, 8);
  assert_int_equal(ow_section_size(obj, sec), 9);
  assert_int_equal(ow_patch(obj, sec, 8, "yz", 2), -1); /* past the end */
  assert_int_equal(ow_append(obj, 7, "x", 1, 1, NULL), -1);
  assert_int_equal(ow_reloc(obj, sec, 0, R_X86_64_64, 5, 0), -1);
  assert_int_equal(ow_symbol(obj, "s", STB_LOCAL, STT_OBJECT, STV_DEFAULT, 9,
                             0, 0),
                   -1);
  ow_free(obj);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_args_spellings),
      cmocka_unit_test(test_args_errors),
      cmocka_unit_test(test_target),
      cmocka_unit_test(test_object_layout),
      cmocka_unit_test(test_object_without_arch),
      cmocka_unit_test(test_writer_bounds),
  };
  return cmocka_run_group_tests_name("wrap", tests, NULL, NULL);
}
