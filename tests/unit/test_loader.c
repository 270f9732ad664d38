/* Unit tests of the emu device's ELF loader (src/plugins/emu/loader/loader.h): small
 * images built with $CC -shared during the test are loaded into a real code
 * arena, called, and checked; corrupted copies of them must be rejected
 * with a message and without a crash. */
#define _GNU_SOURCE /* memmem, dlvsym, dladdr */
#include "config.h"
#include "arena.h"
#include "devicertl.h"
#include "loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <ompemu/abi.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* ---- the device runtime as this test defines it ---- */

static int fake_getpid(void) { return 4242; }
static int rtl_only(void) { return 31337; }
static int lookups;

void *devicertl_lookup(const char *name) {
  lookups++;
  if (strcmp(name, "getpid") == 0)
    return (void *)fake_getpid;
  if (strcmp(name, "emu_test_rtl_only") == 0)
    return (void *)rtl_only;
  return NULL;
}

/* The flang kernels' device runtime is not part of this test. */
void *devicertl_flang_lookup(const char *name) {
  (void)name;
  return NULL;
}

/* The teams stand-ins of fresh_root.c are not part of this test. */
void *fresh_root_lookup(const char *name) {
  (void)name;
  return NULL;
}

/* ---- fixtures: images built once, one code arena ---- */

static char tmpdir[64];
static struct emu_arena *code;

struct blob {
  unsigned char *data;
  size_t size;
};
static struct blob good, tls, tlsie, undef, rtlonly, odd, oldver;
static struct blob noexp_gnu, noexp_both;
static struct blob relr; /* empty if the linker lacks DT_RELR */

static int build(const char *name, const char *extra, struct blob *b) {
  const char *cc = getenv("CC");
  const char *src = getenv("OMPEMU_SRCDIR");
  char cmd[1024], out[256];
  snprintf(out, sizeof out, "%s/%s.so", tmpdir, name);
  snprintf(cmd, sizeof cmd, "%s -shared -fPIC -O1 -o %s %s/tests/unit/images/%s.c %s",
           cc && *cc ? cc : "cc", out, src && *src ? src : ".", name, extra);
  if (system(cmd) != 0) {
    fprintf(stderr, "cannot build test image: %s\n", cmd);
    return -1;
  }
  FILE *f = fopen(out, "rb");
  if (!f)
    return -1;
  fseek(f, 0, SEEK_END);
  b->size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  b->data = malloc(b->size);
  size_t got = fread(b->data, 1, b->size, f);
  fclose(f);
  unlink(out);
  return got == b->size ? 0 : -1;
}

static int setup(void **state) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/test_loader.XXXXXX");
  if (!mkdtemp(tmpdir))
    return -1;
  if (build("good", "-lm", &good) || build("tls", "", &tls) ||
      build("tls", "-ftls-model=initial-exec", &tlsie) ||
      build("undef", "", &undef) || build("rtlonly", "", &rtlonly) || build("odd", "", &odd) ||
      build("oldver", "", &oldver) ||
      build("noexport", "-Wl,--hash-style=gnu", &noexp_gnu) ||
      build("noexport", "-Wl,--hash-style=both", &noexp_both))
    return -1;
  if (build("good", "-lm -Wl,-z,pack-relative-relocs", &relr) != 0)
    relr.size = 0;
  rmdir(tmpdir);
  /* Freed code blocks must come back read-write (checked at unload). */
  setenv("OMPEMU_QUARANTINE", "0", 1);
  code = arena_create("code", 0, EMU_CODE_BASE, 64UL << 20, 4096);
  return code ? 0 : -1;
}

static int teardown(void **state) {
  arena_destroy(code);
  free(good.data);
  free(tls.data);
  free(tlsie.data);
  free(undef.data);
  free(rtlonly.data);
  free(odd.data);
  free(oldver.data);
  free(relr.data);
  free(noexp_gnu.data);
  free(noexp_both.data);
  return 0;
}

/* ---- helpers ---- */

#define SYM(img, type, name) ((type)loader_symbol((img), (name), NULL))

/* Permissions ("r-xp") of the mapping holding ADDR, from /proc/self/maps. */
static void perms_of(const void *addr, char perms[5]) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[512];
  strcpy(perms, "????");
  while (f && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char p[5];
    if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) == 3 &&
        (uintptr_t)addr >= lo && (uintptr_t)addr < hi) {
      memcpy(perms, p, 5);
      break;
    }
  }
  if (f)
    fclose(f);
}

/* Load a copy of B[0..SIZE) expecting rejection; the message must name the
 * image and contain WANT.  The image's stderr output is captured. */
static void expect_reject(const void *data, size_t size, const char *want) {
  char path[] = "/tmp/test_loader_err.XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(2);
  dup2(fd, 2);
  /* A copy in its own allocation, so ASan and valgrind see overreads. */
  void *copy = malloc(size ? size : 1);
  memcpy(copy, data, size);
  size_t before = arena_in_use(code);
  struct emu_image *img = loader_load(0, code, copy, size, "bad");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  free(copy);
  char msg[1024] = "";
  ssize_t n = pread(fd, msg, sizeof msg - 1, 0);
  close(fd);
  unlink(path);
  msg[n > 0 ? n : 0] = '\0';
  if (img)
    loader_unload(img);
  assert_null(img);
  assert_int_equal(arena_in_use(code), before);
  if (!strstr(msg, "emu: error: image bad rejected: ") || !strstr(msg, want))
    fail_msg("message '%s' lacks '%s'", msg, want);
  /* One refusal, one line: nothing else is printed for it. */
  const char *nl = strchr(msg, '\n');
  if (!nl || nl[1] != '\0')
    fail_msg("expected exactly one line, got '%s'", msg);
}

/* The ELF view a test mutates: a private copy of the good image. */
struct mut {
  unsigned char *d;
  size_t size;
  Elf64_Ehdr *eh;
  Elf64_Phdr *ph;
};

static struct mut mut_new(const struct blob *b) {
  struct mut m;
  m.d = malloc(b->size);
  memcpy(m.d, b->data, b->size);
  m.size = b->size;
  m.eh = (Elf64_Ehdr *)m.d;
  m.ph = (Elf64_Phdr *)(m.d + m.eh->e_phoff);
  return m;
}

/* File offset of VADDR through the PT_LOAD segments. */
static size_t mut_off(const struct mut *m, uint64_t vaddr) {
  for (int i = 0; i < m->eh->e_phnum; i++) {
    const Elf64_Phdr *p = &m->ph[i];
    if (p->p_type == PT_LOAD && vaddr >= p->p_vaddr &&
        vaddr < p->p_vaddr + p->p_filesz)
      return p->p_offset + (vaddr - p->p_vaddr);
  }
  fail_msg("vaddr 0x%lx not in the file", (unsigned long)vaddr);
  return 0;
}

static Elf64_Phdr *mut_phdr(struct mut *m, uint32_t type, int nth) {
  for (int i = 0; i < m->eh->e_phnum; i++)
    if (m->ph[i].p_type == type && nth-- == 0)
      return &m->ph[i];
  fail_msg("no program header of type %u", type);
  return NULL;
}

/* The dynamic entry TAG in the file. */
static Elf64_Dyn *mut_dyn(struct mut *m, int64_t tag) {
  Elf64_Phdr *d = mut_phdr(m, PT_DYNAMIC, 0);
  for (Elf64_Dyn *e = (Elf64_Dyn *)(m->d + d->p_offset); e->d_tag; e++)
    if (e->d_tag == tag)
      return e;
  fail_msg("no dynamic tag %ld", (long)tag);
  return NULL;
}

static Elf64_Rela *mut_rela(struct mut *m, int64_t table, size_t n) {
  return (Elf64_Rela *)(m->d + mut_off(m, mut_dyn(m, table)->d_un.d_ptr)) + n;
}

static Elf64_Sym *mut_dynsym(struct mut *m, size_t idx) {
  return (Elf64_Sym *)(m->d + mut_off(m, mut_dyn(m, DT_SYMTAB)->d_un.d_ptr)) +
         idx;
}

/* ---- tests of good images ---- */

static void test_check(void **state) {
  char why[256];
  assert_int_equal(loader_check(good.data, good.size, why, sizeof why), 1);
  assert_int_equal(loader_check(good.data, 10, why, sizeof why), 0);
  assert_non_null(strstr(why, "shorter than an ELF64 header"));
  struct mut m = mut_new(&good);
  m.eh->e_machine = EM_AARCH64;
  assert_int_equal(loader_check(m.d, m.size, why, sizeof why), 0);
  assert_non_null(strstr(why, "e_machine 183"));
  m.eh->e_machine = EM_X86_64;
  m.eh->e_type = ET_EXEC;
  assert_int_equal(loader_check(m.d, m.size, why, sizeof why), 0);
  assert_non_null(strstr(why, "ET_DYN"));
  m.eh->e_type = ET_DYN;
  m.d[EI_CLASS] = ELFCLASS32;
  assert_int_equal(loader_check(m.d, m.size, why, sizeof why), 0);
  free(m.d);
}

static void test_load_and_call(void **state) {
  struct emu_image *img = loader_load(0, code, good.data, good.size, "good");
  assert_non_null(img);
  assert_true(arena_owns(code, (void *)loader_base(img)));
  assert_true(loader_span(img) >= 0x4000);
  assert_string_equal(loader_label(img), "good");

  /* Functions and globals by name, inside the image's span. */
  int *gvar = SYM(img, int *, "gvar");
  assert_non_null(gvar);
  assert_true(loader_contains(img, gvar));
  assert_int_equal(*gvar, 5);
  size_t sz = 0;
  assert_ptr_equal(loader_symbol(img, "gvar", &sz), gvar);
  assert_int_equal(sz, sizeof(int));
  void (*kernel)(int *, int *) = SYM(img, void (*)(int *, int *), "kernel_add");
  assert_non_null(kernel);
  int a = 1, b = 2;
  kernel(&a, &b);
  assert_int_equal(a, 8);
  assert_null(loader_symbol(img, "no_such_symbol", NULL));
  assert_false(loader_contains(img, &a));

  /* A static function, only in .symtab. */
  int (*helper)(int) = SYM(img, int (*)(int), "helper_static");
  assert_non_null(helper);
  assert_true(loader_contains(img, (void *)helper));
  assert_int_equal(helper(4), 13);

  /* R_X86_64_64 to the image itself and to libc. */
  assert_ptr_equal(*SYM(img, int **, "gptr"), gvar);
  assert_ptr_equal(*SYM(img, void **, "puts_ptr"), (void *)&puts);
  /* R_X86_64_RELATIVE. */
  int **parr = SYM(img, int **, "parr");
  assert_true(loader_contains(img, parr[0]) && loader_contains(img, parr[1]));
  assert_int_equal(*parr[0], 1);
  assert_int_equal(*parr[1], 2);
  /* R_X86_64_GLOB_DAT to libc data. */
  assert_ptr_equal(SYM(img, FILE *(*)(void), "get_stdout")(), stdout);
  /* Weak undefined stays NULL. */
  assert_null(SYM(img, int *(*)(void), "weak_addr")());
  /* R_X86_64_JUMP_SLOT to libc, and the device runtime winning. */
  assert_int_equal(SYM(img, size_t(*)(const char *), "image_strlen")("abcd"),
                   4);
  assert_int_equal(SYM(img, int (*)(void), "image_pid")(), 4242);
  /* DT_NEEDED libm. */
  double r = SYM(img, double (*)(double), "image_cbrt")(27.0);
  assert_true(r > 2.999999 && r < 3.000001);
  /* IRELATIVE and a JUMP_SLOT to an ifunc. */
  assert_int_equal(SYM(img, int (*)(void), "call_ifn_hidden")(), 77);
  assert_int_equal(SYM(img, int (*)(void), "call_ifn_pub")(), 88);
  /* An ifunc by name is the function its resolver picked. */
  assert_int_equal(SYM(img, int (*)(void), "ifn_pub")(), 88);

  /* Page protections: code RX, RELRO read-only, data RW. */
  char perms[5];
  perms_of((void *)kernel, perms);
  assert_string_equal(perms, "r-xp");
  const char *const *names = SYM(img, const char *const *, "names");
  assert_string_equal(names[1], "beta");
  perms_of(names, perms);
  assert_string_equal(perms, "r--p");
  perms_of(gvar, perms);
  assert_string_equal(perms, "rw-p");

  /* Initialisers ran once; finalisers run at unload. */
  assert_int_equal(*SYM(img, int *, "init_count"), 1);
  int fini = 0;
  *SYM(img, int **, "fini_flag") = &fini;
  uintptr_t base = loader_base(img);
  size_t span = loader_span(img);
  loader_unload(img);
  assert_int_equal(fini, 1);
  /* The block went back to the arena, read-write and poisoned. */
  perms_of((void *)base, perms);
  assert_string_equal(perms, "rw-p");
  assert_int_equal(*(unsigned char *)(base + span - 1), EMU_POISON_BYTE);
}

/* Relative relocations packed in DT_RELR (ld -z pack-relative-relocs). */
static void test_relr(void **state) {
  if (!relr.size)
    skip();
  struct emu_image *img = loader_load(0, code, relr.data, relr.size, "relr");
  assert_non_null(img);
  int **parr = SYM(img, int **, "parr");
  assert_int_equal(*parr[0], 1);
  assert_int_equal(*parr[1], 2);
  assert_string_equal(SYM(img, const char *const *, "names")[0], "alpha");
  size_t n;
  const __tgt_offload_entry *e = loader_entries(img, &n);
  assert_int_equal(n, 2);
  assert_string_equal(e[1].name, "gvar");
  assert_int_equal(*SYM(img, int *, "init_count"), 1);
  assert_int_equal(SYM(img, int (*)(void), "call_ifn_hidden")(), 77);
  loader_unload(img);
}

/* An image whose dynamic symbols are all undefined: the GNU hash table
 * counts none of them, so the symbol table must be sized from DT_HASH, the
 * .dynsym section, or (neither present) the DT_SYMTAB..DT_STRTAB span. */
static void test_no_exports(void **state) {
  struct blob *v[2] = {&noexp_gnu, &noexp_both};
  for (int i = 0; i < 2; i++) {
    struct emu_image *img = loader_load(0, code, v[i]->data, v[i]->size, "noexport");
    assert_non_null(img);
    assert_int_equal(*SYM(img, int *, "noexport_state"), 1);
    loader_unload(img);
  }
  /* Without section headers only DT_GNU_HASH and DT_STRTAB remain. */
  unsigned char *copy = malloc(noexp_gnu.size);
  memcpy(copy, noexp_gnu.data, noexp_gnu.size);
  Elf64_Ehdr *eh = (Elf64_Ehdr *)copy;
  eh->e_shoff = 0;
  eh->e_shnum = 0;
  eh->e_shstrndx = 0;
  struct emu_image *img = loader_load(0, code, copy, noexp_gnu.size, "noexport-noshdr");
  assert_non_null(img);
  loader_unload(img);
  free(copy);
}

/* Versioned references bind to the version the image asks for. */
static void test_symbol_version(void **state) {
  struct emu_image *img =
      loader_load(0, code, oldver.data, oldver.size, "oldver");
  assert_non_null(img);
  void *got = SYM(img, void *(*)(void), "realpath_ptr")();
  void *old = dlvsym(RTLD_DEFAULT, "realpath", "GLIBC_2.2.5");
  void *def = dlsym(RTLD_DEFAULT, "realpath");
  assert_non_null(old);
  assert_ptr_not_equal(old, def);
  Dl_info a, b;
  assert_true(dladdr(old, &a) && dladdr(def, &b));
  if (a.dli_fbase == b.dli_fbase) {
    assert_ptr_equal(got, old); /* libc's old realpath, not the new one */
  } else {
    /* An unversioned interposer (ASan's) wins, as with the dynamic linker. */
    assert_ptr_equal(got, def);
  }
  loader_unload(img);
}

/* A version entry with an empty name (ELF hash 0) once crashed glibc's
 * dlvsym (found by the fuzzer): such versions are ignored.  glibc crashes
 * only when the symbol is found unversioned in a versioned object, as
 * ASan's interceptors are, so this catches a regression in sanitizer
 * builds. */
static void test_empty_version(void **state) {
  struct mut m = mut_new(&good);
  Elf64_Verneed *vn = (Elf64_Verneed *)(m.d + mut_off(&m, mut_dyn(&m, DT_VERNEED)->d_un.d_ptr));
  for (int n = 0; n < 2; n++) {
    Elf64_Vernaux *va = (Elf64_Vernaux *)((unsigned char *)vn + vn->vn_aux);
    for (int c = 0; c < vn->vn_cnt; c++) {
      va->vna_name = 0; /* dynstr[0] is "" */
      va = (Elf64_Vernaux *)((unsigned char *)va + va->vna_next);
    }
    if (!vn->vn_next)
      break;
    vn = (Elf64_Verneed *)((unsigned char *)vn + vn->vn_next);
  }
  struct emu_image *img = loader_load(0, code, m.d, m.size, "emptyver");
  assert_non_null(img);
  assert_ptr_equal(SYM(img, FILE *(*)(void), "get_stdout")(), stdout);
  loader_unload(img);
  free(m.d);
}

static void test_two_copies(void **state) {
  struct emu_image *i1 = loader_load(0, code, good.data, good.size, "one");
  struct emu_image *i2 = loader_load(0, code, good.data, good.size, "two");
  assert_non_null(i1);
  assert_non_null(i2);
  int *g1 = SYM(i1, int *, "gvar"), *g2 = SYM(i2, int *, "gvar");
  assert_ptr_not_equal(g1, g2);
  assert_false(loader_contains(i1, g2));
  *g1 = 100;
  assert_int_equal(*g2, 5);
  /* Each copy's kernel uses its own global. */
  int a = 0, b = 0;
  SYM(i2, void (*)(int *, int *), "kernel_add")(&a, &b);
  assert_int_equal(a, 5);
  assert_ptr_equal(*SYM(i1, int **, "gptr"), g1);
  assert_ptr_equal(*SYM(i2, int **, "gptr"), g2);
  loader_unload(i2);
  loader_unload(i1);
}

static void test_entries(void **state) {
  struct emu_image *img = loader_load(0, code, good.data, good.size, "good");
  assert_non_null(img);
  size_t n = 0;
  const __tgt_offload_entry *e = loader_entries(img, &n);
  assert_int_equal(n, 2);
  assert_string_equal(e[0].name, "kernel_add");
  assert_ptr_equal(e[0].addr, loader_symbol(img, "kernel_add", NULL));
  assert_int_equal(e[0].size, 0);
  assert_string_equal(e[1].name, "gvar");
  assert_ptr_equal(e[1].addr, loader_symbol(img, "gvar", NULL));
  assert_int_equal(e[1].size, sizeof(int));
  assert_true(loader_contains(img, e[0].name));
  loader_unload(img);
  /* clang 14 aligns the section to 1 byte: entries at an odd address. */
  img = loader_load(0, code, odd.data, odd.size, "odd");
  assert_non_null(img);
  uintptr_t sec = (uintptr_t)loader_symbol(img, "odd_entry", NULL);
  assert_int_equal(sec % 2, 1);
  e = loader_entries(img, &n);
  assert_int_equal(n, 1);
  assert_int_equal((uintptr_t)e % _Alignof(__tgt_offload_entry), 0);
  assert_string_equal(e[0].name, "kernel_one");
  assert_ptr_equal(e[0].addr, loader_symbol(img, "kernel_one", NULL));
  assert_int_equal(((int (*)(void))e[0].addr)(), 1);
  loader_unload(img);
  /* An image without the section has no entries. */
  img = loader_load(0, code, rtlonly.data, rtlonly.size, "rtlonly");
  assert_non_null(img);
  n = 7;
  assert_null(loader_entries(img, &n));
  assert_int_equal(n, 0);
  loader_unload(img);
}

static void test_devicertl_only(void **state) {
  int before = lookups;
  struct emu_image *img =
      loader_load(0, code, rtlonly.data, rtlonly.size, "rtlonly");
  assert_non_null(img);
  assert_true(lookups > before);
  assert_int_equal(SYM(img, int (*)(void), "call_rtl_only")(), 31337);
  loader_unload(img);
}

/* GDB's JIT descriptor gets the image at load and loses it at unload. */
struct jit_code_entry {
  struct jit_code_entry *next_entry, *prev_entry;
  const char *symfile_addr;
  uint64_t symfile_size;
};
extern struct {
  uint32_t version, action_flag;
  struct jit_code_entry *relevant_entry, *first_entry;
} __jit_debug_descriptor;

static void test_gdbjit(void **state) {
  assert_null(__jit_debug_descriptor.first_entry);
  struct emu_image *img = loader_load(0, code, good.data, good.size, "good");
  assert_non_null(img);
  struct jit_code_entry *e = __jit_debug_descriptor.first_entry;
  assert_non_null(e);
  assert_int_equal(e->symfile_size, good.size);
  /* Program headers and symbols in the registered copy are rebased. */
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->symfile_addr;
  const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->symfile_addr + eh->e_phoff);
  assert_int_equal(ph[0].p_vaddr, loader_base(img) +
                                      ((const Elf64_Phdr *)(good.data +
                                                            eh->e_phoff))[0]
                                          .p_vaddr);
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(e->symfile_addr + eh->e_shoff);
  int found = 0;
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB)
      continue;
    const Elf64_Sym *s = (const Elf64_Sym *)(e->symfile_addr + sh[i].sh_offset);
    const char *str = e->symfile_addr + sh[sh[i].sh_link].sh_offset;
    for (size_t k = 0; k < sh[i].sh_size / sizeof *s; k++)
      if (strcmp(str + s[k].st_name, "helper_static") == 0) {
        assert_ptr_equal((void *)s[k].st_value,
                         loader_symbol(img, "helper_static", NULL));
        found = 1;
      }
  }
  assert_true(found);
  loader_unload(img);
  assert_null(__jit_debug_descriptor.first_entry);
}

/* ---- bad images ---- */

static void test_truncated(void **state) {
  size_t lens[] = {0, 1, 4, 16, 63, 64, 65, 100, 0x200, 0x1000, 0x2000};
  for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
    if (lens[i] < good.size)
      expect_reject(good.data, lens[i], "");
  for (size_t len = 0; len < good.size; len += 97)
    expect_reject(good.data, len, "");
  expect_reject(good.data, good.size - 1, "outside the file");
}

static void test_bad_headers(void **state) {
  struct mut m = mut_new(&good);
  uint64_t v = m.eh->e_phoff;
  m.eh->e_phoff = m.size - 8;
  expect_reject(m.d, m.size, "program headers at e_phoff");
  m.eh->e_phoff = UINT64_MAX - 8;
  expect_reject(m.d, m.size, "program headers at e_phoff");
  m.eh->e_phoff = v;
  v = m.eh->e_shoff;
  m.eh->e_shoff = m.size + 64;
  expect_reject(m.d, m.size, "section headers at e_shoff");
  m.eh->e_shoff = v;
  m.eh->e_phentsize = 40;
  expect_reject(m.d, m.size, "e_phentsize 40");
  m.eh->e_phentsize = sizeof(Elf64_Phdr);
  m.eh->e_machine = EM_AARCH64;
  expect_reject(m.d, m.size, "e_machine");
  m.eh->e_machine = EM_X86_64;
  Elf64_Shdr *sh = (Elf64_Shdr *)(m.d + m.eh->e_shoff);
  sh[3].sh_offset = m.size - 4;
  expect_reject(m.d, m.size, "section 3 at offset");
  free(m.d);
}

static void test_bad_segments(void **state) {
  struct mut m = mut_new(&good);
  Elf64_Phdr *data = mut_phdr(&m, PT_LOAD, 3), saved = *data;
  data->p_filesz = data->p_memsz + 1;
  expect_reject(m.d, m.size, "exceeds p_memsz");
  *data = saved;
  data->p_offset = m.size - 16;
  expect_reject(m.d, m.size, "lie outside the file");
  *data = saved;
  data->p_memsz = 1UL << 40;
  expect_reject(m.d, m.size, "absurd size");
  *data = saved;
  data->p_vaddr = UINT64_MAX - 0x100;
  expect_reject(m.d, m.size, "absurd size");
  *data = saved;
  data->p_vaddr = mut_phdr(&m, PT_LOAD, 2)->p_vaddr;
  expect_reject(m.d, m.size, "overlaps");
  *data = saved;
  mut_phdr(&m, PT_DYNAMIC, 0)->p_type = PT_NULL;
  expect_reject(m.d, m.size, "no dynamic section (PT_DYNAMIC)");
  free(m.d);
  m = mut_new(&good);
  mut_phdr(&m, PT_DYNAMIC, 0)->p_vaddr = 0x7fff0000;
  expect_reject(m.d, m.size, "PT_DYNAMIC");
  free(m.d);
  m = mut_new(&good);
  for (int i = 0; i < m.eh->e_phnum; i++)
    if (m.ph[i].p_type == PT_LOAD)
      m.ph[i].p_type = PT_NOTE;
  expect_reject(m.d, m.size, "no PT_LOAD segment");
  free(m.d);
}

static void test_bad_relocations(void **state) {
  struct mut m = mut_new(&good);
  Elf64_Rela *r = mut_rela(&m, DT_RELA, 0), saved = *r;
  r->r_offset = 0x7ffffff0;
  expect_reject(m.d, m.size, "offset 0x7ffffff0 lies outside the image span");
  r->r_offset = UINT64_MAX - 4;
  expect_reject(m.d, m.size, "lies outside the image span");
  *r = saved;
  r->r_offset = 0x1000; /* code */
  expect_reject(m.d, m.size, "read-only segment");
  *r = saved;
  r->r_info = ELF64_R_INFO(0, 200);
  expect_reject(m.d, m.size, "unsupported type 200");
  r->r_info = ELF64_R_INFO(0, R_X86_64_PC32);
  expect_reject(m.d, m.size, "R_X86_64_PC32");
  r->r_info = ELF64_R_INFO(1, R_X86_64_TPOFF64);
  expect_reject(m.d, m.size, "initial-exec");
  r->r_info = ELF64_R_INFO(0, R_X86_64_DTPMOD64);
  expect_reject(m.d, m.size, "R_X86_64_DTPMOD64 in an image without PT_TLS");
  *r = saved;
  Elf64_Rela *j = mut_rela(&m, DT_JMPREL, 0), js = *j;
  j->r_info = ELF64_R_INFO(0xffffff, R_X86_64_JUMP_SLOT);
  expect_reject(m.d, m.size, "symbol index 16777215 beyond the symbol table");
  *j = js;
  Elf64_Sym *s = mut_dynsym(&m, ELF64_R_SYM(j->r_info));
  s->st_name = 0xfffffff0;
  expect_reject(m.d, m.size, "name offset 0xfffffff0 outside the string table");
  free(m.d);
  m = mut_new(&good);
  mut_dyn(&m, DT_RELASZ)->d_un.d_val = 24UL << 36;
  expect_reject(m.d, m.size, "DT_RELA table");
  mut_dyn(&m, DT_RELASZ)->d_un.d_val = 25;
  expect_reject(m.d, m.size, "not a multiple of 24");
  free(m.d);
  m = mut_new(&good);
  mut_dyn(&m, DT_STRSZ)->d_un.d_val = 1UL << 40;
  expect_reject(m.d, m.size, "string table DT_STRTAB");
  free(m.d);
  m = mut_new(&good);
  mut_dyn(&m, DT_PLTREL)->d_un.d_val = DT_REL;
  expect_reject(m.d, m.size, "DT_PLTREL 17");
  free(m.d);
  /* A bad GNU hash table makes the symbol table absurdly long. */
  m = mut_new(&good);
  uint32_t *gh = (uint32_t *)(m.d + mut_off(&m, mut_dyn(&m, DT_GNU_HASH)->d_un.d_ptr));
  gh[0] = 0x7fffffff;
  expect_reject(m.d, m.size, "DT_GNU_HASH");
  free(m.d);
}

static void test_bad_entries(void **state) {
  struct mut m = mut_new(&good);
  Elf64_Shdr *sh = (Elf64_Shdr *)(m.d + m.eh->e_shoff);
  const char *shstr = (const char *)m.d + sh[m.eh->e_shstrndx].sh_offset;
  Elf64_Shdr *ent = NULL;
  for (int i = 0; i < m.eh->e_shnum; i++)
    if (strcmp(shstr + sh[i].sh_name, "omp_offloading_entries") == 0)
      ent = &sh[i];
  assert_non_null(ent);
  ent->sh_size = 40;
  expect_reject(m.d, m.size, "not a multiple of the entry size 32");
  ent->sh_size = 32;
  ent->sh_addr = 0x7ff00000;
  expect_reject(m.d, m.size, "omp_offloading_entries [0x7ff00000, +0x20) lies outside");
  free(m.d);
}

static void test_missing_library(void **state) {
  struct mut m = mut_new(&good);
  unsigned char *p = memmem(m.d, m.size, "libm.so.6", 10);
  assert_non_null(p);
  memcpy(p, "libq.so.6", 10);
  expect_reject(m.d, m.size, "needed library 'libq.so.6' cannot be opened");
  free(m.d);
}

/* A DT_NEEDED library found only in the image's DT_RUNPATH. */
static void test_runpath(void **state) {
  char dir[] = "/tmp/test_loader_rp.XXXXXX", cmd[2048];
  assert_non_null(mkdtemp(dir));
  const char *cc = getenv("CC"), *src = getenv("OMPEMU_SRCDIR");
  cc = cc && *cc ? cc : "cc";
  src = src && *src ? src : ".";
  snprintf(cmd, sizeof cmd,
           "%s -shared -fPIC -o %s/libemudep.so %s/tests/unit/images/dep.c && "
           "%s -shared -fPIC -o %s/needs.so %s/tests/unit/images/needs.c "
           "-L%s -lemudep -Wl,--enable-new-dtags,-rpath,%s",
           cc, dir, src, cc, dir, src, dir, dir);
  assert_int_equal(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s/needs.so", dir);
  FILE *f = fopen(cmd, "rb");
  assert_non_null(f);
  unsigned char buf[65536];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  struct emu_image *img = loader_load(0, code, buf, n, "needs");
  assert_non_null(img);
  assert_int_equal(SYM(img, int (*)(int), "call_dep")(6), 43);
  loader_unload(img);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

struct tls_run {
  struct emu_image *img;
  int first, second, ld;
  int *addr;
};

static void *tls_thread(void *arg) {
  struct tls_run *r = arg;
  r->first = SYM(r->img, int (*)(void), "bump")();
  r->second = SYM(r->img, int (*)(void), "bump")();
  r->ld = SYM(r->img, int (*)(int), "ld")(1);
  r->addr = SYM(r->img, int *(*)(void), "counter_addr")();
  return NULL;
}

/* Global- and local-dynamic TLS: one block per thread and image, made from
 * the image's template. */
static void test_tls(void **state) {
  struct emu_image *i1 = loader_load(0, code, tls.data, tls.size, "tls1");
  struct emu_image *i2 = loader_load(0, code, tls.data, tls.size, "tls2");
  assert_non_null(i1);
  assert_non_null(i2);
  struct tls_run main1 = {i1}, main2 = {i2}, other = {i1};
  tls_thread(&main1);
  assert_int_equal(main1.first, 4);
  assert_int_equal(main1.second, 5);
  assert_int_equal(main1.ld, 5);
  assert_int_equal(SYM(i1, int (*)(int), "ld")(1), 10);
  /* Another image: its own block, fresh from the template. */
  tls_thread(&main2);
  assert_int_equal(main2.first, 4);
  assert_ptr_not_equal(main1.addr, main2.addr);
  /* Another thread: its own block. */
  pthread_t t;
  assert_int_equal(pthread_create(&t, NULL, tls_thread, &other), 0);
  pthread_join(t, NULL);
  assert_int_equal(other.first, 4);
  assert_int_equal(other.ld, 5);
  assert_ptr_not_equal(other.addr, main1.addr);
  assert_int_equal(*main1.addr, 5);
  /* A thread still holding a block when its image goes away. */
  loader_unload(i2);
  loader_unload(i1);
}

static void test_tls_undefined(void **state) {
  expect_reject(tlsie.data, tlsie.size, "R_X86_64_TPOFF64 (initial-exec");
  expect_reject(undef.data, undef.size,
                "undefined symbol 'emu_missing_function'");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_check),
      cmocka_unit_test(test_load_and_call),
      cmocka_unit_test(test_relr),
      cmocka_unit_test(test_no_exports),
      cmocka_unit_test(test_symbol_version),
      cmocka_unit_test(test_empty_version),
      cmocka_unit_test(test_two_copies),
      cmocka_unit_test(test_entries),
      cmocka_unit_test(test_devicertl_only),
      cmocka_unit_test(test_gdbjit),
      cmocka_unit_test(test_truncated),
      cmocka_unit_test(test_bad_headers),
      cmocka_unit_test(test_bad_segments),
      cmocka_unit_test(test_bad_relocations),
      cmocka_unit_test(test_bad_entries),
      cmocka_unit_test(test_runpath),
      cmocka_unit_test(test_missing_library),
      cmocka_unit_test(test_tls),
      cmocka_unit_test(test_tls_undefined),
  };
  return cmocka_run_group_tests_name("loader", tests, setup, teardown);
}
