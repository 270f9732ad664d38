/* The DWARF line-table reader (src/runtime/dwarf_line.c) on hand-made
 * objects: DWARF 5 (.debug_line_str, entry formats) and DWARF 4 (string
 * lists) line programs with special, standard and extended opcodes, and
 * malformed input (a truncated section, every truncation of a unit, a bad
 * version, a zero line range, an object that is not ELF): a clear
 * message, no crash (run under valgrind by make check-valgrind). */
#include "config.h"
#include "dwarf_line.h"

#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* A growing byte buffer. */
struct buf {
  uint8_t d[4096];
  size_t n;
};

static void put(struct buf *b, const void *p, size_t n) {
  assert_true(b->n + n <= sizeof b->d);
  memcpy(b->d + b->n, p, n);
  b->n += n;
}
static void u8(struct buf *b, unsigned v) {
  uint8_t c = (uint8_t)v;
  put(b, &c, 1);
}
static void u16(struct buf *b, unsigned v) { u8(b, v & 0xff), u8(b, v >> 8); }
static void u32(struct buf *b, uint32_t v) {
  u16(b, v & 0xffff), u16(b, v >> 16);
}
static void u64(struct buf *b, uint64_t v) {
  u32(b, (uint32_t)v), u32(b, (uint32_t)(v >> 32));
}
static void str(struct buf *b, const char *s) { put(b, s, strlen(s) + 1); }

static const uint8_t std_lens[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

/* The common part of a header after the header length. */
static void header_fixed(struct buf *b, unsigned version) {
  u8(b, 1); /* minimum instruction length */
  if (version >= 4)
    u8(b, 1); /* maximum operations per instruction */
  u8(b, 1);   /* default is_stmt */
  u8(b, (uint8_t)-5); /* line base */
  u8(b, 14);  /* line range */
  u8(b, 13);  /* opcode base */
  put(b, std_lens, sizeof std_lens);
}

/* Patches the 4-byte value at OFF to the distance from OFF + 4 to the end. */
static void patch_len(struct buf *b, size_t off) {
  uint32_t v = (uint32_t)(b->n - off - 4);
  memcpy(b->d + off, &v, 4);
}

static void set_address(struct buf *b, uint64_t a) {
  u8(b, 0), u8(b, 9), u8(b, 2), u64(b, a);
}

/* A DWARF 5 unit: files a.c (in /src) and b.h (in inc, relative to the
 * compilation directory /src); rows 0x1000 a.c:10:5, 0x1010 a.c:12,
 * 0x1018 b.h:13, end 0x1020.  LINE_STR receives the directory names. */
static void unit_v5(struct buf *b, struct buf *line_str) {
  str(line_str, "/src");
  str(line_str, "inc");
  size_t start = b->n;
  u32(b, 0);
  u16(b, 5);
  u8(b, 8), u8(b, 0);
  size_t hl = b->n;
  u32(b, 0);
  header_fixed(b, 5);
  u8(b, 1), u8(b, 1), u8(b, 0x1f); /* directories: path as line_strp */
  u8(b, 2), u32(b, 0), u32(b, 5);
  u8(b, 2), u8(b, 1), u8(b, 0x08), u8(b, 2), u8(b, 0x0b); /* path, dir */
  u8(b, 2), str(b, "a.c"), u8(b, 0), str(b, "b.h"), u8(b, 1);
  patch_len(b, hl);
  set_address(b, 0x1000);
  u8(b, 4), u8(b, 0);    /* set_file 0 */
  u8(b, 5), u8(b, 5);    /* set_column 5 */
  u8(b, 3), u8(b, 9);    /* advance_line 9 */
  u8(b, 1);              /* copy */
  u8(b, 5), u8(b, 0);    /* set_column 0 */
  u8(b, 2), u8(b, 0x10); /* advance_pc 16 */
  u8(b, 3), u8(b, 2);    /* advance_line 2 */
  u8(b, 1);
  u8(b, 4), u8(b, 1);             /* set_file 1 */
  u8(b, (1 + 5) + 14 * 8 + 13);   /* special: address +8, line +1 */
  u8(b, 2), u8(b, 8);
  u8(b, 0), u8(b, 1), u8(b, 1);   /* end_sequence */
  patch_len(b, start);
}

/* A DWARF 4 unit: files m.c (directory 0, none known) and /abs/h.h; rows
 * 0x2000 m.c:5, 0x2014 h.h:6, end 0x2018. */
static void unit_v4(struct buf *b) {
  size_t start = b->n;
  u32(b, 0);
  u16(b, 4);
  size_t hl = b->n;
  u32(b, 0);
  header_fixed(b, 4);
  str(b, "/inc"), u8(b, 0);
  str(b, "m.c"), u8(b, 0), u8(b, 0), u8(b, 0);
  str(b, "/abs/h.h"), u8(b, 1), u8(b, 0), u8(b, 0);
  u8(b, 0);
  patch_len(b, hl);
  set_address(b, 0x2000);
  u8(b, 3), u8(b, 4);             /* line 5 */
  u8(b, 1);
  u8(b, 8);                       /* const_add_pc: +17 */
  u8(b, 9), u16(b, 3);            /* fixed_advance_pc 3: 0x2014 */
  u8(b, 3), u8(b, 1);
  u8(b, 4), u8(b, 2);
  u8(b, 1);
  u8(b, 2), u8(b, 4);
  u8(b, 0), u8(b, 1), u8(b, 1);
  patch_len(b, start);
}

/* An ELF image holding .debug_line = LINE (N bytes) and, when LS, a
 * .debug_line_str; the caller frees it. */
static char *make_elf(const uint8_t *line, size_t n, const struct buf *ls,
                      size_t *size) {
  static const char shstr[] = "\0.shstrtab\0.debug_line\0.debug_line_str";
  size_t off_sh = sizeof(Elf64_Ehdr), off_line = off_sh + sizeof shstr;
  size_t off_ls = off_line + n;
  size_t off_shdr = (off_ls + (ls ? ls->n : 0) + 7) & ~(size_t)7;
  unsigned nsec = ls ? 4 : 3;
  *size = off_shdr + nsec * sizeof(Elf64_Shdr);
  char *img = calloc(1, *size);
  assert_non_null(img);
  Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
  memcpy(eh->e_ident, ELFMAG, SELFMAG);
  eh->e_ident[EI_CLASS] = ELFCLASS64;
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
  eh->e_ident[EI_VERSION] = EV_CURRENT;
  eh->e_type = ET_DYN;
  eh->e_machine = EM_X86_64;
  eh->e_version = EV_CURRENT;
  eh->e_ehsize = sizeof(Elf64_Ehdr);
  eh->e_shoff = off_shdr;
  eh->e_shentsize = sizeof(Elf64_Shdr);
  eh->e_shnum = (Elf64_Half)nsec;
  eh->e_shstrndx = 1;
  memcpy(img + off_sh, shstr, sizeof shstr);
  if (n)
    memcpy(img + off_line, line, n);
  if (ls)
    memcpy(img + off_ls, ls->d, ls->n);
  Elf64_Shdr *sh = (Elf64_Shdr *)(img + off_shdr);
  sh[1] = (Elf64_Shdr){.sh_name = 1, .sh_type = SHT_STRTAB,
                       .sh_offset = off_sh, .sh_size = sizeof shstr,
                       .sh_addralign = 1};
  sh[2] = (Elf64_Shdr){.sh_name = 11, .sh_type = SHT_PROGBITS,
                       .sh_offset = off_line, .sh_size = n,
                       .sh_addralign = 1};
  if (ls)
    sh[3] = (Elf64_Shdr){.sh_name = 23, .sh_type = SHT_PROGBITS,
                         .sh_offset = off_ls, .sh_size = ls->n,
                         .sh_addralign = 1};
  return img;
}

/* Looks ADDR up in an image of LINE (N bytes) and LS: the result. */
static int lookup(const uint8_t *line, size_t n, const struct buf *ls,
                  uint64_t addr, struct dwl_loc *loc, char *err,
                  size_t errlen) {
  size_t size;
  char *img = make_elf(line, n, ls, &size);
  (void)elf_version(EV_CURRENT);
  Elf *e = elf_memory(img, size);
  assert_non_null(e);
  err[0] = 0;
  int rc = dwl_lookup_elf(e, addr, loc, err, errlen);
  elf_end(e);
  free(img);
  return rc;
}

static void test_v5(void **state) {
  (void)state;
  struct buf b = {0}, ls = {0};
  struct dwl_loc loc;
  char err[256];
  unit_v5(&b, &ls);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x1000, &loc, err, sizeof err), 1);
  assert_string_equal(loc.file, "/src/a.c");
  assert_int_equal(loc.line, 10);
  assert_int_equal(loc.column, 5);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x100f, &loc, err, sizeof err), 1);
  assert_int_equal(loc.line, 10);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x1010, &loc, err, sizeof err), 1);
  assert_int_equal(loc.line, 12);
  assert_int_equal(loc.column, 0);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x101f, &loc, err, sizeof err), 1);
  assert_string_equal(loc.file, "/src/inc/b.h");
  assert_int_equal(loc.line, 13);
  /* past the end of the sequence, and before it */
  assert_int_equal(lookup(b.d, b.n, &ls, 0x1020, &loc, err, sizeof err), 0);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x0fff, &loc, err, sizeof err), 0);
}

static void test_v4_and_two_units(void **state) {
  (void)state;
  struct buf b = {0}, ls = {0};
  struct dwl_loc loc;
  char err[256];
  unit_v5(&b, &ls);
  unit_v4(&b);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x2000, &loc, err, sizeof err), 1);
  assert_string_equal(loc.file, "m.c"); /* no .debug_info: no comp dir */
  assert_int_equal(loc.line, 5);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x2013, &loc, err, sizeof err), 1);
  assert_int_equal(loc.line, 5);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x2014, &loc, err, sizeof err), 1);
  assert_string_equal(loc.file, "/abs/h.h");
  assert_int_equal(loc.line, 6);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x1018, &loc, err, sizeof err), 1);
  assert_string_equal(loc.file, "/src/inc/b.h");
}

static void test_truncated_section(void **state) {
  (void)state;
  struct buf b = {0}, ls = {0};
  struct dwl_loc loc;
  char err[256];
  unit_v5(&b, &ls);
  assert_int_equal(lookup(b.d, b.n - 10, &ls, 0x1000, &loc, err, sizeof err),
                   -1);
  assert_non_null(strstr(err, "truncated"));
  assert_int_equal(lookup(b.d, 2, &ls, 0x1000, &loc, err, sizeof err), -1);
  assert_non_null(strstr(err, "truncated"));
}

/* Every length of the unit, with its unit length saying so: no crash,
 * no read past the bytes given (valgrind), and a message when refused. */
static void test_every_truncation(void **state) {
  (void)state;
  struct buf full = {0}, ls = {0};
  struct dwl_loc loc;
  char err[256];
  unit_v5(&full, &ls);
  unit_v4(&full);
  for (size_t n = 4; n < full.n; n++) {
    uint8_t *cut = malloc(n);
    assert_non_null(cut);
    memcpy(cut, full.d, n);
    uint32_t len = (uint32_t)(n - 4);
    memcpy(cut, &len, 4);
    int rc = lookup(cut, n, &ls, 0x1018, &loc, err, sizeof err);
    assert_true(rc >= -1 && rc <= 1);
    if (rc == -1)
      assert_true(err[0] != 0);
    free(cut);
  }
}

static void test_bad_version(void **state) {
  (void)state;
  struct buf b = {0}, ls = {0};
  struct dwl_loc loc;
  char err[256];
  unit_v5(&b, &ls);
  b.d[4] = 9; /* version 9 */
  assert_int_equal(lookup(b.d, b.n, &ls, 0x1000, &loc, err, sizeof err), -1);
  assert_string_equal(err, "line table at offset 0x0: unsupported DWARF "
                           "version 9");
  b.d[4] = 1;
  assert_int_equal(lookup(b.d, b.n, &ls, 0x1000, &loc, err, sizeof err), -1);
  assert_non_null(strstr(err, "unsupported DWARF version 1"));
}

static void test_zero_line_range(void **state) {
  (void)state;
  struct buf b = {0}, ls = {0};
  struct dwl_loc loc;
  char err[256];
  unit_v5(&b, &ls);
  /* after unit length 4, version 2, sizes 2, header length 4, minimum
   * instruction length, maximum operations, default is_stmt, line base */
  b.d[4 + 2 + 2 + 4 + 4] = 0;
  assert_int_equal(lookup(b.d, b.n, &ls, 0x1000, &loc, err, sizeof err), -1);
  assert_non_null(strstr(err, "zero line range"));
}

static void test_header_past_unit(void **state) {
  (void)state;
  struct buf b = {0}, ls = {0};
  struct dwl_loc loc;
  char err[256];
  unit_v5(&b, &ls);
  uint32_t big = 0x10000;
  memcpy(b.d + 8, &big, 4);
  assert_int_equal(lookup(b.d, b.n, &ls, 0x1000, &loc, err, sizeof err), -1);
  assert_non_null(strstr(err, "truncated header"));
}

static void test_no_line_table_and_not_elf(void **state) {
  (void)state;
  struct dwl_loc loc;
  char err[256];
  assert_int_equal(lookup(NULL, 0, NULL, 0x1000, &loc, err, sizeof err), 0);
  char junk[64] = "not an ELF object at all";
  Elf *e = elf_memory(junk, sizeof junk);
  assert_non_null(e);
  assert_int_equal(dwl_lookup_elf(e, 0, &loc, err, sizeof err), -1);
  assert_non_null(strstr(err, "not an ELF object"));
  elf_end(e);
  assert_int_equal(dwl_lookup("/nonexistent/prog", 0, &loc, err, sizeof err),
                   -1);
  assert_string_equal(err, "cannot open /nonexistent/prog");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_v5),
      cmocka_unit_test(test_v4_and_two_units),
      cmocka_unit_test(test_truncated_section),
      cmocka_unit_test(test_every_truncation),
      cmocka_unit_test(test_bad_version),
      cmocka_unit_test(test_zero_line_range),
      cmocka_unit_test(test_header_past_unit),
      cmocka_unit_test(test_no_line_table_and_not_elf),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
