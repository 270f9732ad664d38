/* Unit tests of ompemu-dump's ELF view on hand-made buffers: refusing what
 * is not ELF64, ignoring header tables that point outside the file, and
 * bounds on every read (segments, bss, wrap-around, strings, entry
 * tables) - the cases a malformed file produces. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <elf.h>

#include "../../src/tools/dump/dump.h"
#include "../../src/tools/dump/elfview.h"

/* A 512-byte ELF64 file: header, one PT_LOAD mapping file bytes
 * [0x100, 0x140) at vaddr 0x1000 with memsz 0x100, no sections. */
static unsigned char file[512];

static void make_file(void) {
  memset(file, 0, sizeof(file));
  Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
  memcpy(eh->e_ident, ELFMAG, SELFMAG);
  eh->e_ident[EI_CLASS] = ELFCLASS64;
  eh->e_ident[EI_DATA] = ELFDATA2LSB;
  eh->e_ident[EI_VERSION] = EV_CURRENT;
  eh->e_type = ET_DYN;
  eh->e_machine = EM_X86_64;
  eh->e_version = EV_CURRENT;
  eh->e_ehsize = sizeof(Elf64_Ehdr);
  eh->e_phoff = sizeof(Elf64_Ehdr);
  eh->e_phentsize = sizeof(Elf64_Phdr);
  eh->e_phnum = 1;
  eh->e_shentsize = sizeof(Elf64_Shdr);
  Elf64_Phdr *ph = (Elf64_Phdr *)(file + eh->e_phoff);
  ph->p_type = PT_LOAD;
  ph->p_offset = 0x100;
  ph->p_vaddr = 0x1000;
  ph->p_filesz = 0x40;
  ph->p_memsz = 0x100;
  memcpy(file + 0x100, "hi\0unterminated", 15);
  memset(file + 0x100 + 0x30, 'x', 0x10); /* no NUL up to the end */
}

static void free_notes(struct dump_notes *n) {
  for (size_t i = 0; i < n->n; i++)
    free(n->msgs[i]);
  free(n->msgs);
  memset(n, 0, sizeof(*n));
}

static void test_refuses_non_elf64(void **state) {
  (void)state;
  struct ev v;
  struct dump_notes notes = {0};
  const char *why;
  assert_int_equal(ev_open(&v, "hello", 5, &notes, &why), -1);
  assert_string_equal(why, "not an ELF file");
  make_file();
  assert_int_equal(ev_open(&v, file, 20, &notes, &why), -1);
  assert_string_equal(why, "truncated ELF header");
  file[EI_CLASS] = ELFCLASS32;
  assert_int_equal(ev_open(&v, file, sizeof(file), &notes, &why), -1);
  assert_non_null(strstr(why, "64-bit"));
  free_notes(&notes);
}

static void test_reads_are_bounded(void **state) {
  (void)state;
  struct ev v;
  struct dump_notes notes = {0};
  const char *why;
  make_file();
  assert_int_equal(ev_open(&v, file, sizeof(file), &notes, &why), 0);
  assert_int_equal(v.phnum, 1);
  char buf[16];
  assert_int_equal(ev_read(&v, 0x1000, buf, 3), 0);
  assert_string_equal(buf, "hi");
  assert_int_equal(ev_read(&v, 0x103c, buf, 8), -1); /* straddles filesz */
  memset(buf, 0x55, 8);
  assert_int_equal(ev_read(&v, 0x1080, buf, 8), 0); /* bss reads as 0 */
  assert_int_equal(buf[0], 0);
  assert_int_equal(ev_read(&v, 0x10f8, buf, 16), -1); /* past memsz */
  assert_int_equal(ev_read(&v, 0xfff, buf, 2), -1);   /* before the segment */
  assert_int_equal(ev_read(&v, UINT64_MAX - 2, buf, 8), -1); /* wraps */
  char *s = ev_string(&v, 0x1000, 64);
  assert_non_null(s);
  assert_string_equal(s, "hi");
  free(s);
  s = ev_string(&v, 0x1030, 4096); /* the bss after the file bytes ends it */
  assert_non_null(s);
  assert_int_equal(strlen(s), 16);
  free(s);
  assert_null(ev_string(&v, 0x1003, 4));    /* longer than the limit */
  uint64_t p;
  const char *imp;
  assert_int_equal(ev_read_ptr(&v, 0x1000, &p, &imp), 0);
  assert_null(imp);
  assert_int_equal(ev_read_ptr(&v, 0x2000, &p, &imp), -1);
  struct dump_entry *e = dump_read_entries(&v, 0x1000, (size_t)1 << 21, 0,
                                           &notes);
  assert_null(e);
  assert_true(notes.n >= 1);
  assert_non_null(strstr(notes.msgs[notes.n - 1], "claims"));
  /* Entries past the segment: one note for all of them. */
  size_t before = notes.n;
  e = dump_read_entries(&v, 0x2000, (size_t)1 << 20, 0, &notes);
  assert_non_null(e);
  assert_int_equal(notes.n, before + 1);
  assert_non_null(strstr(notes.msgs[before], "1048576 entries from entry 0 at "
                                             "0x0000000000002000 on are outside"));
  free(e); /* entries outside the file hold no strings */
  ev_close(&v);
  free_notes(&notes);
}

static void test_bad_header_tables(void **state) {
  (void)state;
  struct ev v;
  struct dump_notes notes = {0};
  const char *why;
  make_file();
  Elf64_Ehdr *eh = (Elf64_Ehdr *)file;
  eh->e_phoff = 0x7fffffffffff0000ULL;
  eh->e_shoff = 0x7fffffff00000000ULL;
  eh->e_shnum = 4;
  eh->e_shstrndx = 1;
  if (ev_open(&v, file, sizeof(file), &notes, &why) == 0) {
    assert_int_equal(v.phnum, 0); /* ignored, not trusted */
    assert_int_equal(v.shnum, 0);
    assert_true(notes.n >= 1);
    char buf[4];
    assert_int_equal(ev_read(&v, 0x1000, buf, 4), -1);
    GElf_Shdr sh;
    assert_int_equal(ev_section(&v, "omp_offloading_entries", &sh), 0);
    ev_close(&v);
  } else {
    assert_non_null(why); /* libelf refused the header: also fine */
  }
  free_notes(&notes);
}

static void test_devimage_of_garbage(void **state) {
  (void)state;
  struct dump_devimage d;
  dump_devimage("\x7f" "EL", 3, &d);
  assert_int_equal(d.is_elf, 0);
  assert_int_equal(d.notes.n, 1);
  dump_free_devimage(&d);
  make_file();
  ((Elf64_Ehdr *)file)->e_machine = 224;
  dump_devimage(file, sizeof(file), &d);
  assert_int_equal(d.is_elf, 1);
  assert_int_equal(d.machine, 224);
  assert_int_equal(d.nentries, 0);
  assert_string_equal(dump_machine_name(d.machine), "AMDGPU");
  dump_free_devimage(&d);
}

static void test_entry_kinds(void **state) {
  (void)state;
  struct dump_entry e = {0};
  assert_string_equal(dump_entry_kind(&e), "kernel");
  e.size = 4;
  assert_string_equal(dump_entry_kind(&e), "variable");
  e.flags = 1;
  assert_string_equal(dump_entry_kind(&e), "link");
  e.flags = 2;
  assert_string_equal(dump_entry_kind(&e), "ctor");
  e.flags = 4;
  assert_string_equal(dump_entry_kind(&e), "dtor");
  e.flags = 8;
  e.size = 0;
  assert_string_equal(dump_entry_kind(&e), "indirect function");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_refuses_non_elf64),
      cmocka_unit_test(test_reads_are_bounded),
      cmocka_unit_test(test_bad_header_tables),
      cmocka_unit_test(test_devimage_of_garbage),
      cmocka_unit_test(test_entry_kinds),
  };
  return cmocka_run_group_tests_name("dump", tests, NULL, NULL);
}
