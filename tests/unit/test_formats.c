/* Unit tests of the format readers the runtime uses for clang 16+ and
 * flang 22 binaries, on bytes taken from real programs built here
 * (format_samples.h): device images (OffloadBinary or raw ELF,
 * src/runtime/image_format.c), offload entry tables (32 and 56 bytes,
 * src/runtime/entry_table.c) and KernelArgs versions 1-3
 * into the launch descriptor every door fills (src/runtime/kernel_args.c,
 * doors.h); plus the malformed cases each must refuse
 * with a message naming the bad field. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "entry_table.h"
#include "format_samples.h"
#include "image_format.h"
#include "kernel_args.h"

static char why[512];

/* ------------------------------------------------------------ images */

/* The clang-16 container: the real first 0xd0 bytes, then the rest of its
 * 0x4098 bytes as the rest of an (unreadable, zero-filled) ELF image. */
static unsigned char *make_ob16(void) {
  unsigned char *b = calloc(1, OB16_SIZE);
  assert_non_null(b);
  memcpy(b, ob16_head, sizeof ob16_head);
  return b;
}

static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }

static void test_offload_binary_clang16(void **state) {
  (void)state;
  unsigned char *b = make_ob16();
  struct rt_image_desc d;
  assert_int_equal(rt_image_describe(b, b + OB16_SIZE, &d, why, sizeof why), 0);
  assert_true(d.in_container);
  assert_true(d.is_elf);
  assert_int_equal(d.container_version, 1);
  assert_int_equal(d.container_size, OB16_SIZE);
  assert_ptr_equal(d.code, b + OB16_IMAGE_OFFSET);
  assert_int_equal(d.code_size, OB16_IMAGE_SIZE);
  assert_int_equal(d.image_kind, RT_IMAGE_KIND_OBJECT);
  assert_int_equal(d.offload_kind, RT_OFFLOAD_KIND_OPENMP);
  assert_int_equal(d.flags, 0);
  assert_string_equal(d.triple, "x86_64-pc-linux-gnu");
  assert_string_equal(d.arch, "");
  assert_string_equal(rt_image_string(&d, "triple"), "x86_64-pc-linux-gnu");
  assert_null(rt_image_string(&d, "kind"));
  assert_string_equal(rt_image_kind_name(d.image_kind), "object");
  assert_string_equal(rt_offload_kind_name(d.offload_kind), "OpenMP");
  /* A range longer than the container (trailing padding) is accepted. */
  unsigned char *big = calloc(1, OB16_SIZE + 64);
  memcpy(big, b, OB16_SIZE);
  assert_int_equal(rt_image_describe(big, big + OB16_SIZE + 64, &d, why, sizeof why), 0);
  assert_int_equal(d.code_size, OB16_IMAGE_SIZE);
  free(big);
  free(b);
}

static void test_raw_elf_clang22(void **state) {
  (void)state;
  /* clang 19/22: ImageStart is the ELF inside the container. */
  unsigned char *b = make_ob16();
  const unsigned char *elf = b + OB16_IMAGE_OFFSET;
  struct rt_image_desc d;
  assert_int_equal(rt_image_describe(elf, b + OB16_SIZE, &d, why, sizeof why), 0);
  assert_false(d.in_container);
  assert_true(d.is_elf);
  assert_ptr_equal(d.code, elf);
  assert_int_equal(d.code_size, OB16_IMAGE_SIZE);
  assert_null(d.triple);
  assert_null(rt_image_string(&d, "triple"));
  free(b);
}

/* Describe [B, B+LEN) expecting failure with TEXT in the message. */
static void expect_bad(const unsigned char *b, size_t len, const char *text) {
  struct rt_image_desc d;
  why[0] = '\0';
  assert_int_equal(rt_image_describe(b, b + len, &d, why, sizeof why), -1);
  if (!strstr(why, text))
    fail_msg("message '%s' lacks '%s'", why, text);
}

static void test_offload_binary_malformed(void **state) {
  (void)state;
  unsigned char *b = make_ob16();
  expect_bad(b, 20, "truncated: 20 bytes");
  put32(b + 4, 2);
  expect_bad(b, OB16_SIZE, "version 2 is not supported");
  put32(b + 4, 1);
  expect_bad(b, OB16_SIZE - 8, "claims 16536 bytes but the image range holds 16528");
  put64(b + 16, OB16_SIZE - 8); /* entry_offset: entry runs past the end */
  expect_bad(b, OB16_SIZE, "OffloadBinary entry (offset 0x4090, 40 bytes)");
  put64(b + 16, 0x20);
  put64(b + 0x20 + 32, OB16_IMAGE_SIZE + 1); /* image_size */
  expect_bad(b, OB16_SIZE, "image (offset 0x90, 16393 bytes) is not inside");
  put64(b + 0x20 + 32, OB16_IMAGE_SIZE);
  put64(b + 0x20 + 24, UINT64_MAX - 4); /* image_offset wraps */
  expect_bad(b, OB16_SIZE, "is not inside the container");
  put64(b + 0x20 + 24, OB16_IMAGE_OFFSET);
  put64(b + 0x20 + 16, UINT64_MAX / 8); /* num_strings huge */
  expect_bad(b, OB16_SIZE, "string table");
  put64(b + 0x20 + 16, 2);
  put64(b + 0x48, OB16_SIZE); /* key offset at the very end */
  expect_bad(b, OB16_SIZE, "string pair 0 (key at 0x4098");
  put64(b + 0x48, 0x82);
  b[OB16_IMAGE_OFFSET] = 'X'; /* image kind object without ELF */
  expect_bad(b, OB16_SIZE, "image kind object, but its 16392 bytes at offset 0x90");
  b[OB16_IMAGE_OFFSET] = 0x7f;
  struct rt_image_desc d;
  assert_int_equal(rt_image_describe(b, b + OB16_SIZE, &d, why, sizeof why), 0);
  free(b);
}

static void test_image_neither(void **state) {
  (void)state;
  static const unsigned char junk[] = {0xde, 0xad, 0xbe, 0xef, 1, 2};
  expect_bad(junk, sizeof junk, "first bytes de ad be ef (6 bytes in all)");
  expect_bad(junk, 2, "first bytes de ad 00 00 (2 bytes in all)");
  struct rt_image_desc d;
  assert_int_equal(rt_image_describe(junk, junk, &d, why, sizeof why), -1);
  assert_non_null(strstr(why, "empty"));
  assert_int_equal(rt_image_describe(junk + 2, junk, &d, why, sizeof why), -1);
  assert_non_null(strstr(why, "invalid"));
  assert_int_equal(rt_image_describe(NULL, junk, &d, why, sizeof why), -1);
  /* WHY may be omitted. */
  assert_int_equal(rt_image_describe(junk, junk + 6, &d, NULL, 0), -1);
}

/* ----------------------------------------------------------- entries */

/* Point the name field (at NAME_OFF in each ENTRY_SIZE-byte entry) of the
 * copy T at the string its file address stood for. */
struct name_of { uint64_t file_addr; const char *name; };

static void patch_names(unsigned char *t, size_t bytes, size_t entry_size,
                        size_t name_off, const struct name_of *map,
                        size_t nmap) {
  for (size_t o = 0; o < bytes; o += entry_size) {
    uint64_t a;
    memcpy(&a, t + o + name_off, 8);
    for (size_t k = 0; k < nmap; k++)
      if (map[k].file_addr == a) {
        const char *p = map[k].name;
        memcpy(t + o + name_off, &p, sizeof p);
      }
  }
}

static const struct name_of names22[] = {
    {0x6008, "gto_decl_tgt_ref_ptr"},
    {0x601d, "glink_decl_tgt_ref_ptr"},
    {0x6034, "__omp_offloading_fe00_a723f6_twice_l7"},
    {0x605a, "__omp_offloading_fe00_a723f6_main_l12"},
    {0x6080, ".requires"}};
static const struct name_of names19[] = {
    {0x2080, "gto_decl_tgt_ref_ptr"},
    {0x20a0, "glink_decl_tgt_ref_ptr"},
    {0x20c0, "__omp_offloading_fe00_a723f6_twice_l7"},
    {0x20f0, "__omp_offloading_fe00_a723f6_main_l12"},
    {0x2074, ""}};

static void test_entries_56_clang22(void **state) {
  (void)state;
  unsigned char t[sizeof ent22];
  memcpy(t, ent22, sizeof t);
  patch_names(t, sizeof t, 56, 24, names22, 5);
  struct rt_entry *e;
  size_t n;
  enum rt_entry_format f;
  assert_int_equal(rt_entries_read(t, t + sizeof t, &e, &n, &f, why, sizeof why), 0);
  assert_int_equal(f, RT_ENTRIES_LLVM56);
  assert_int_equal(n, 5);
  /* gto under USM: a reference pointer, but flagged as a plain global. */
  assert_string_equal(e[0].name, "gto_decl_tgt_ref_ptr");
  assert_int_equal(e[0].kind, RT_ENTRY_GLOBAL);
  assert_int_equal(e[0].flags, 0);
  assert_int_equal(e[0].size, 8);
  assert_ptr_equal(e[0].addr, (void *)0x8040);
  assert_int_equal(e[0].version, 1);
  assert_int_equal(e[0].offload_kind, 1);
  assert_int_equal(e[1].kind, RT_ENTRY_LINK);
  assert_string_equal(e[1].name, "glink_decl_tgt_ref_ptr");
  assert_int_equal(e[2].kind, RT_ENTRY_INDIRECT);
  assert_int_equal(e[2].flags, RT_ENTRY_FLAG_INDIRECT);
  assert_int_equal(e[2].size, 8);
  assert_ptr_equal(e[2].addr, (void *)0x11b0);
  assert_int_equal(e[3].kind, RT_ENTRY_KERNEL);
  assert_string_equal(e[3].name, "__omp_offloading_fe00_a723f6_main_l12");
  assert_ptr_equal(e[3].addr, (void *)0x2010);
  assert_int_equal(e[4].kind, RT_ENTRY_REQUIRES);
  assert_string_equal(e[4].name, ".requires");
  assert_null(e[4].addr);
  assert_int_equal(e[4].data, 8); /* unified_shared_memory */
  assert_false(rt_entry_has_symbol(&e[4]));
  assert_true(rt_entry_has_symbol(&e[3]));
  for (size_t i = 0; i < n; i++) {
    assert_ptr_equal(e[i].raw, t + 56 * i);
    assert_null(e[i].aux_addr);
  }
  free(e);
}

static void test_entries_32_clang19(void **state) {
  (void)state;
  unsigned char t[sizeof ent19];
  memcpy(t, ent19, sizeof t);
  patch_names(t, sizeof t, 32, 8, names19, 5);
  struct rt_entry *e;
  size_t n;
  enum rt_entry_format f;
  assert_int_equal(rt_entries_read(t, t + sizeof t, &e, &n, &f, why, sizeof why), 0);
  assert_int_equal(f, RT_ENTRIES_OMP32);
  assert_int_equal(n, 5);
  /* Like clang 22, no flag on the USM reference pointer. */
  assert_int_equal(e[0].kind, RT_ENTRY_GLOBAL);
  assert_int_equal(e[1].kind, RT_ENTRY_LINK);
  assert_int_equal(e[2].kind, RT_ENTRY_INDIRECT);
  assert_int_equal(e[3].kind, RT_ENTRY_KERNEL);
  assert_int_equal(e[4].kind, RT_ENTRY_REQUIRES);
  assert_string_equal(e[4].name, "");
  assert_int_equal(e[4].data, 8); /* from the reserved word */
  assert_int_equal(e[3].data, 0);
  assert_int_equal(e[0].version, 0);
  assert_int_equal(e[0].offload_kind, 1);
  free(e);
}

static void test_entries_ambiguous_sizes(void **state) {
  (void)state;
  /* 224 bytes: 4 new entries or 7 old ones. */
  unsigned char t[224];
  memcpy(t, ent22, 224);
  enum rt_entry_format f;
  size_t n;
  assert_int_equal(rt_entries_detect(t, t + 224, &f, &n, why, sizeof why), 0);
  assert_int_equal(f, RT_ENTRIES_LLVM56);
  assert_int_equal(n, 4);
  /* 7 old entries, the first two of them with a NULL address (Reserved
   * reads 0): their name pointers are not Version 1. */
  memcpy(t, ent19, 160);
  memcpy(t + 160, ent19, 64);
  memcpy(t, ent19 + 128, 32); /* the requires entry first: addr NULL */
  assert_int_equal(rt_entries_detect(t, t + 224, &f, &n, why, sizeof why), 0);
  assert_int_equal(f, RT_ENTRIES_OMP32);
  assert_int_equal(n, 7);
  /* One 56-byte entry with a bad Version makes all of them 32-byte ones. */
  memcpy(t, ent22, 224);
  t[56 * 3 + 8] = 2;
  assert_int_equal(rt_entries_detect(t, t + 224, &f, &n, why, sizeof why), 0);
  assert_int_equal(f, RT_ENTRIES_OMP32);
}

static void test_entries_malformed(void **state) {
  (void)state;
  enum rt_entry_format f;
  size_t n;
  unsigned char t[sizeof ent22];
  memcpy(t, ent22, sizeof t);
  /* 280 bytes: 56-byte only; a bad Reserved is named. */
  t[56 * 2] = 1;
  assert_int_equal(rt_entries_detect(t, t + sizeof t, &f, &n, why, sizeof why), -1);
  assert_non_null(strstr(why, "280 bytes, a multiple of 56 but not of 32, and its entry 2 has Reserved 0x1, Version 1"));
  assert_int_equal(rt_entries_detect(t, t + 50, &f, &n, why, sizeof why), -1);
  assert_non_null(strstr(why, "50 bytes: not a whole number"));
  assert_int_equal(rt_entries_detect(t + 8, t, &f, &n, why, sizeof why), -1);
  assert_non_null(strstr(why, "invalid"));
  assert_int_equal(rt_entries_detect(NULL, t, &f, &n, why, sizeof why), -1);
  volatile size_t huge = (size_t)1 << 40; /* a bound, never dereferenced */
  assert_int_equal(rt_entries_detect(t, (char *)t + huge, &f, &n, why,
                                     sizeof why), -1);
  assert_non_null(strstr(why, "more than"));
  /* Empty tables are fine, NULL..NULL included. */
  assert_int_equal(rt_entries_detect(NULL, NULL, &f, &n, why, sizeof why), 0);
  assert_int_equal(f, RT_ENTRIES_EMPTY);
  assert_int_equal(n, 0);
  struct rt_entry *e = (struct rt_entry *)1;
  assert_int_equal(rt_entries_read(t, t, &e, &n, NULL, why, sizeof why), 0);
  assert_null(e);
  assert_int_equal(n, 0);
}

static void test_entries_to_omp32(void **state) {
  (void)state;
  unsigned char t[sizeof ent22];
  memcpy(t, ent22, sizeof t);
  patch_names(t, sizeof t, 56, 24, names22, 5);
  t[56 * 1 + 10] = 2; /* entry 1 of another offload kind: left out */
  __tgt_offload_entry *o;
  size_t n;
  assert_int_equal(rt_entries_to_omp32(t, t + sizeof t, &o, &n, why, sizeof why), 0);
  assert_int_equal(n, 4);
  assert_string_equal(o[0].name, "gto_decl_tgt_ref_ptr");
  assert_ptr_equal(o[0].addr, (void *)0x8040);
  assert_int_equal(o[0].size, 8);
  assert_string_equal(o[1].name, "__omp_offloading_fe00_a723f6_twice_l7");
  assert_int_equal(o[1].flags, RT_ENTRY_FLAG_INDIRECT);
  assert_int_equal(o[1].reserved, 0);
  assert_int_equal(o[2].size, 0);
  assert_string_equal(o[3].name, ".requires");
  assert_int_equal(o[3].flags, RT_ENTRY_FLAG_REQUIRES);
  assert_int_equal(o[3].reserved, 8);
  free(o);
  /* a 32-byte table comes back as it was */
  unsigned char u[sizeof ent19];
  memcpy(u, ent19, sizeof u);
  assert_int_equal(rt_entries_to_omp32(u, u + sizeof u, &o, &n, why, sizeof why), 0);
  assert_int_equal(n, 5);
  assert_memory_equal(o, u, sizeof u);
  free(o);
  assert_int_equal(rt_entries_to_omp32(u, u + 50, &o, &n, why, sizeof why), -1);
  assert_null(o);
  assert_int_equal(rt_entries_to_omp32(u, u, &o, &n, why, sizeof why), 0);
  assert_null(o);
  assert_int_equal(n, 0);
}

static void test_entry_kinds(void **state) {
  (void)state;
  assert_int_equal(rt_entry_classify(0, 0), RT_ENTRY_KERNEL);
  assert_int_equal(rt_entry_classify(0, 4), RT_ENTRY_GLOBAL);
  assert_int_equal(rt_entry_classify(0x1, 8), RT_ENTRY_LINK);
  assert_int_equal(rt_entry_classify(0x2, 0), RT_ENTRY_CTOR);
  assert_int_equal(rt_entry_classify(0x4, 0), RT_ENTRY_DTOR);
  assert_int_equal(rt_entry_classify(0x8, 8), RT_ENTRY_INDIRECT);
  assert_int_equal(rt_entry_classify(0x10, 0), RT_ENTRY_REQUIRES);
  assert_int_equal(rt_entry_classify(0x20, 40), RT_ENTRY_VTABLE);
  assert_int_equal(rt_entry_classify(0x28, 40), RT_ENTRY_VTABLE);
  assert_string_equal(rt_entry_kind_name(RT_ENTRY_VTABLE), "vtable");
  assert_string_equal(rt_entry_kind_name(RT_ENTRY_INDIRECT), "indirect");
  assert_string_equal(rt_entry_format_name(RT_ENTRIES_LLVM56),
                      "56-byte llvm_offload_entries");
  /* A 56-byte entry of another offload kind (Kind 2) is "other". */
  unsigned char t[56];
  memcpy(t, ent22 + 56 * 3, 56);
  t[10] = 2;
  struct rt_entry e;
  rt_entry_get(t, RT_ENTRIES_LLVM56, 0, &e);
  assert_int_equal(e.kind, RT_ENTRY_OTHER);
  assert_false(rt_entry_has_symbol(&e));
}

/* -------------------------------------------------------- KernelArgs */

static ident_t loc_sample = {0, 2, 0, 0, ";t.c;main;3;1;;"};
static char region_id;

/* Decode A as __tgt_target_kernel(&loc_sample, 0, NT, TL, &region_id, A). */
static int decode(const void *a, int32_t nt, int32_t tl, struct rt_launch *l,
                  uint64_t *flags) {
  return rt_kernel_args_decode(&loc_sample, 0, nt, tl, &region_id, a, l,
                               flags, why, sizeof why);
}

static void test_kernel_args_v2_clang16(void **state) {
  (void)state;
  struct rt_launch l;
  uint64_t flags = 99;
  assert_int_equal(decode(ka16_teams, 2, 3, &l, &flags), 0);
  assert_int_equal(flags, 0);
  assert_int_equal(l.device_id, 0);
  assert_ptr_equal(l.host_ptr, &region_id);
  assert_ptr_equal(l.args.loc, &loc_sample);
  assert_int_equal(l.args.n, 1);
  assert_ptr_equal(l.args.base, (void *)0x7fffe25fc488);
  assert_non_null(l.args.begin);
  assert_null(l.args.names);
  assert_null(l.args.mappers);
  assert_int_equal(l.args.from_mapper, 0);
  assert_true(l.teams);
  assert_int_equal(l.num_teams[0], 2);
  assert_int_equal(l.num_teams[1], 0);
  assert_int_equal(l.thread_limit[0], 3);
  assert_int_equal(l.tripcount, 0);
  assert_false(l.nowait);
  assert_false(l.prepend_dyn_ptr); /* clang 16 kernels have no dyn_ptr */
}

static void test_kernel_args_v3(void **state) {
  (void)state;
  struct rt_launch l;
  uint64_t flags;
  assert_int_equal(decode(ka19_teams, 2, 3, &l, NULL), 0);
  assert_true(l.prepend_dyn_ptr);
  assert_true(l.teams);
  assert_int_equal(l.num_teams[0], 2);
  assert_int_equal(l.thread_limit[0], 3);
  assert_int_equal(l.dyn_mem, 0); /* padding "NITY" not read */
  /* plain target nowait: one team, no teams construct */
  assert_int_equal(decode(ka22_nowait, -1, 0, &l, &flags), 0);
  assert_true(l.nowait);
  assert_int_equal(flags, 1);
  assert_false(l.teams);
  assert_int_equal(l.num_teams[0], 0);
  assert_int_equal(l.thread_limit[0], 0);
  /* teams without num_teams, trip count 100 */
  assert_int_equal(decode(ka22_tripcount, 0, 0, &l, NULL), 0);
  assert_int_equal(l.tripcount, 100);
  assert_true(l.teams);
  assert_int_equal(l.num_teams[0], 0);
  assert_false(l.nowait);
  assert_int_equal(decode(ka22_bare, 2, 5, &l, NULL), 0);
  assert_int_equal(l.num_teams[0], 2);
  assert_int_equal(l.num_teams[1], 3);
  assert_int_equal(l.num_teams[2], 4);
  assert_int_equal(l.thread_limit[0], 5);
  assert_int_equal(l.thread_limit[1], 6);
  assert_int_equal(l.thread_limit[2], 7);
  assert_int_equal(decode(ka22_dyn, -1, 0, &l, NULL), 0);
  assert_int_equal(l.dyn_mem, 64);
  assert_false(l.teams);
}

static void test_kernel_args_v1_reads_64_bytes(void **state) {
  (void)state;
  /* Version 1 is the first 64 bytes only: a canary after them must not
   * show up anywhere. */
  unsigned char buf[128];
  memset(buf, 0xee, sizeof buf);
  unsigned char *a = buf + 128 - 64;
  memcpy(a, ka22_tripcount, 64);
  a[0] = 1;
  struct rt_launch l;
  uint64_t flags = 5;
  assert_int_equal(decode(a, 7, 9, &l, &flags), 0);
  assert_int_equal(l.tripcount, 100);
  assert_true(l.teams);
  assert_int_equal(l.num_teams[0], 7); /* from the scalars */
  assert_int_equal(l.num_teams[1], 0);
  assert_int_equal(l.thread_limit[0], 9);
  assert_int_equal(flags, 0);
  assert_int_equal(l.dyn_mem, 0);
  assert_false(l.nowait);
  assert_false(l.prepend_dyn_ptr);
  assert_int_equal(decode(a, -1, 0, &l, NULL), 0);
  assert_false(l.teams);
}

static void test_kernel_args_malformed(void **state) {
  (void)state;
  struct rt_launch l;
  unsigned char a[104];
  memcpy(a, ka22_nowait, sizeof a);
  a[0] = 4;
  assert_int_equal(decode(a, 0, 0, &l, NULL), -1);
  assert_non_null(strstr(why, "KernelArgs version 4 is not supported"));
  a[0] = 0;
  assert_int_equal(decode(a, 0, 0, &l, NULL), -1);
  assert_non_null(strstr(why, "version 0"));
  assert_int_equal(decode(NULL, 0, 0, &l, NULL), -1);
  assert_non_null(strstr(why, "no KernelArgs"));
  /* even on failure the descriptor names the construct */
  assert_ptr_equal(l.host_ptr, &region_id);
  a[0] = 3;
  memset(a + 16, 0, 8); /* ArgPtrs NULL with one argument */
  assert_int_equal(decode(a, 0, 0, &l, NULL), -1);
  assert_non_null(strstr(why, "1 arguments but a NULL array"));
  a[4] = 0; /* no arguments: NULL arrays are fine */
  memset(a + 8, 0, 32);
  assert_int_equal(decode(a, 0, 0, &l, NULL), 0);
  assert_int_equal(l.args.n, 0);
  memset(a + 4, 0xff, 4);
  assert_int_equal(decode(a, 0, 0, &l, NULL), -1);
  assert_non_null(strstr(why, "NumArgs 4294967295"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_offload_binary_clang16),
      cmocka_unit_test(test_raw_elf_clang22),
      cmocka_unit_test(test_offload_binary_malformed),
      cmocka_unit_test(test_image_neither),
      cmocka_unit_test(test_entries_56_clang22),
      cmocka_unit_test(test_entries_32_clang19),
      cmocka_unit_test(test_entries_ambiguous_sizes),
      cmocka_unit_test(test_entries_malformed),
      cmocka_unit_test(test_entries_to_omp32),
      cmocka_unit_test(test_entry_kinds),
      cmocka_unit_test(test_kernel_args_v2_clang16),
      cmocka_unit_test(test_kernel_args_v3),
      cmocka_unit_test(test_kernel_args_v1_reads_64_bytes),
      cmocka_unit_test(test_kernel_args_malformed),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
