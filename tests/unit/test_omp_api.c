/* The API functions newer omp.h files declare (abi/omp_api_memory.c,
 * abi/omp_api_query.c) against the fake malloc device: omp_target_memset
 * in chunks and its errors, omp_get_mapped_ptr, the _async forms handing
 * the dependences of their depend objects to libomp (stood in for here),
 * the device uids, lock_mem by kind of device, the free_* names in
 * messages and ompx_dump_mapping_tables on stdout. */
#include "config.h"
#include "data_fake.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/omptarget.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- libomp's dependence wait, recorded ---- */
struct kmp_dep {
  intptr_t base_addr;
  size_t len;
  unsigned char flags;
};
static int waits, wait_ndeps;
static struct kmp_dep wait_deps[8];
void __kmpc_omp_wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                          void *dep_list, int32_t ndeps_noalias,
                          void *noalias_dep_list);
void __kmpc_omp_wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                          void *dep_list, int32_t ndeps_noalias,
                          void *noalias_dep_list) {
  (void)loc, (void)gtid, (void)ndeps_noalias, (void)noalias_dep_list;
  waits++;
  wait_ndeps = ndeps;
  memcpy(wait_deps, dep_list,
         (size_t)(ndeps < 8 ? ndeps : 8) * sizeof(struct kmp_dep));
}
int32_t __kmpc_global_thread_num(ident_t *loc);
int32_t __kmpc_global_thread_num(ident_t *loc) {
  (void)loc;
  return 0;
}

/* ---- plugin copies, counted ---- */
static int submits;
static __typeof__(__tgt_rtl_data_submit) *real_submit;
static int32_t counting_submit(int32_t id, void *tgt, void *hst, int64_t n) {
  submits++;
  return real_submit(id, tgt, hst, n);
}

static int setup(void **state) {
  (void)state;
  fake_reset();
  if (!real_submit)
    real_submit = fake_dev.plugin->data_submit;
  fake_dev.plugin->data_submit = counting_submit;
  submits = waits = wait_ndeps = 0;
  return 0;
}

static void map_to(void *p, int64_t size) {
  void *b[1] = {p};
  int64_t s[1] = {size}, t[1] = {OMP_TGT_MAPTYPE_TO};
  __tgt_target_data_begin_mapper(NULL, 0, 1, b, b, s, t, NULL, NULL);
}
static void unmap(void *p, int64_t size) {
  void *b[1] = {p};
  int64_t s[1] = {size}, t[1] = {OMP_TGT_MAPTYPE_FROM};
  __tgt_target_data_end_mapper(NULL, 0, 1, b, b, s, t, NULL, NULL);
}

static void test_memset(void **state) {
  (void)state;
  size_t n = 200 * 1024 + 5; /* four copies of 64 KiB at most */
  unsigned char *d = omp_target_alloc(n, 0), *h = malloc(n);
  assert_non_null(d);
  assert_ptr_equal(omp_target_memset(d, 0xc3, n, 0), d);
  assert_int_equal(submits, 4);
  omp_target_memcpy(h, d, n, 0, 0, 1, 0);
  for (size_t i = 0; i < n; i++)
    if (h[i] != 0xc3)
      fail_msg("byte %zu is %#x", i, h[i]);
  submits = 0;
  assert_ptr_equal(omp_target_memset(d, 1, 0, 0), d);
  assert_ptr_equal(omp_target_memset(NULL, 1, 8, 0), NULL);
  assert_int_equal(submits, 0);
  int x[2] = {0, 0};
  assert_ptr_equal(omp_target_memset(x, 0xff, sizeof x, 1), x); /* host */
  assert_int_equal(x[1], -1);

  unsigned long errs = ompemu_error_count();
  cap_start();
  assert_ptr_equal(omp_target_memset(d, 0, 4, 3), d);
  void *top = (void *)(uintptr_t)0xfffffffffffffff0ull;
  assert_ptr_equal(omp_target_memset(top, 0, 32, 0), top);
  assert_ptr_equal(omp_target_memset(d, 0, (size_t)-8, 0), d);
  const char *err = cap_end();
  assert_int_equal(ompemu_error_count() - errs, 3);
  assert_non_null(strstr(err, "omp_target_memset: device number 3 is neither "
                              "a device (0 to 0) nor the host (1)"));
  assert_non_null(strstr(err, "omp_target_memset: 32 bytes at "
                              "0xfffffffffffffff0 run past the end"));
  assert_int_equal(submits, 0);
  omp_target_free(d, 0);
  free(h);
}

static void test_mapped_ptr(void **state) {
  (void)state;
  int a[8] = {0};
  assert_null(omp_get_mapped_ptr(a, 0));
  assert_ptr_equal(omp_get_mapped_ptr(a, 1), a);
  map_to(a, sizeof a);
  char *t = dev_addr(a);
  assert_non_null(t);
  assert_ptr_equal(omp_get_mapped_ptr(a, 0), t);
  assert_ptr_equal(omp_get_mapped_ptr(&a[7], 0), t + 7 * sizeof(int));
  assert_null(omp_get_mapped_ptr(&a[8], 0));
  unmap(a, sizeof a);
  assert_null(omp_get_mapped_ptr(a, 0));
  cap_start();
  assert_null(omp_get_mapped_ptr(NULL, 0));
  assert_null(omp_get_mapped_ptr(a, -7));
  const char *err = cap_end();
  assert_non_null(strstr(err, "omp_get_mapped_ptr: called with a NULL pointer"));
  assert_non_null(strstr(err, "omp_get_mapped_ptr: device number -7 is "
                              "neither a device"));
}

/* Two depend objects as clang lays them out: a count, then the records. */
static void test_async_depobjs(void **state) {
  (void)state;
  int x, y, z;
  struct kmp_dep o1[3] = {{2, 0, 0}, {(intptr_t)&x, 4, 1}, {(intptr_t)&y, 4, 3}};
  struct kmp_dep o2[2] = {{1, 0, 0}, {(intptr_t)&z, 4, 2}};
  void *objs[2] = {&o1[1], &o2[1]};
  int h[4] = {1, 2, 3, 4}, back[4] = {0};
  int *d = omp_target_alloc(sizeof h, 0);
  assert_int_equal(omp_target_memcpy_async(d, h, sizeof h, 0, 0, 0, 1, 2,
                                           objs), 0);
  assert_int_equal(waits, 1);
  assert_int_equal(wait_ndeps, 3);
  assert_int_equal(wait_deps[0].base_addr, (intptr_t)&x);
  assert_int_equal(wait_deps[1].base_addr, (intptr_t)&y);
  assert_int_equal(wait_deps[1].flags, 3);
  assert_int_equal(wait_deps[2].base_addr, (intptr_t)&z);
  omp_target_memcpy(back, d, sizeof back, 0, 0, 1, 0);
  assert_int_equal(back[3], 4); /* done before it returned */

  /* no depend objects: no wait */
  assert_ptr_equal(omp_target_memset_async(d, 0, sizeof h, 0, 0, NULL), d);
  assert_int_equal(waits, 1);
  size_t vol[1] = {2}, off[1] = {1}, dims[1] = {4};
  assert_int_equal(omp_target_memcpy_rect_async(d, h, sizeof(int), 1, vol, off,
                                                off, dims, dims, 0, 1, 1,
                                                objs + 1), 0);
  assert_int_equal(waits, 2);
  assert_int_equal(wait_ndeps, 1);
  omp_target_memcpy(back, d, sizeof back, 0, 0, 1, 0);
  assert_int_equal(back[0], 0);
  assert_int_equal(back[1], 2);
  assert_int_equal(back[2], 3);
  assert_int_equal(back[3], 0);

  /* malformed lists: nothing done */
  void *bad[1] = {NULL};
  cap_start();
  assert_int_not_equal(omp_target_memcpy_async(d, h, sizeof h, 0, 0, 0, 1, -1,
                                               objs), 0);
  assert_int_not_equal(omp_target_memcpy_async(d, h, sizeof h, 0, 0, 0, 1, 1,
                                               bad), 0);
  assert_int_not_equal(omp_target_memcpy_async(d, h, sizeof h, 0, 0, 0, 1, 2,
                                               NULL), 0);
  const char *err = cap_end();
  /* each names the call: "omp_target_memcpy_async at test_omp_api.c:N: "
   * (test_omp_api+0x... without -g) */
  assert_int_equal(count_substr(err, "omp_target_memcpy_async at test_omp_api"),
                   3);
  assert_non_null(strstr(err, "depobj_list[0] is not an initialised depend "
                              "object"));
  assert_int_equal(waits, 2);
  omp_target_memcpy(back, d, sizeof back, 0, 0, 1, 0);
  assert_int_equal(back[0], 0);
  omp_target_free(d, 0);
}

static int32_t refusing_delete(int32_t id, void *tgt) {
  (void)id, (void)tgt;
  return OFFLOAD_FAIL;
}

static void test_uids_lock_free(void **state) {
  (void)state;
  const char *u = omp_get_uid_from_device(0);
  assert_string_equal(u, "ompemu-fake-0");
  assert_int_equal(omp_get_device_from_uid(u), 0);
  assert_string_equal(omp_get_uid_from_device(1), "ompemu-host");
  assert_int_equal(omp_get_device_from_uid("ompemu-host"), 1);
  assert_int_equal(omp_get_device_from_uid("ompemu-emu-9"), -2);
  assert_int_equal(omp_get_device_num(), 1);
  int h[4];
  assert_int_equal(omp_target_is_accessible(h, sizeof h, 1), 1);
  assert_int_equal(omp_target_is_accessible(h, sizeof h, 0), 0);
  assert_null(llvm_omp_target_dynamic_shared_alloc());

  cap_start();
  assert_null(llvm_omp_target_lock_mem(h, sizeof h, 0)); /* not in-process */
  char *saved = fake_dev.plugin->name;
  fake_dev.plugin->name = (char *)"emu";
  void *l = llvm_omp_target_lock_mem(h, sizeof h, 0);
  fake_dev.plugin->name = saved;
  llvm_omp_target_unlock_mem(h, 0);
  assert_null(llvm_omp_target_lock_mem(h, 0, 0));
  void *d = llvm_omp_target_alloc_device(16, 0);
  __typeof__(__tgt_rtl_data_delete) *real_delete = fake_dev.plugin->data_delete;
  fake_dev.plugin->data_delete = refusing_delete; /* the plugin refuses it */
  llvm_omp_target_free_shared(d, 0); int line = __LINE__;
  fake_dev.plugin->data_delete = real_delete;
  llvm_omp_target_free_device(d, 0);
  const char *err = cap_end();
  assert_ptr_equal(l, h);
  assert_non_null(strstr(err, "llvm_omp_target_lock_mem: device 0 (plugin "
                              "fake) cannot pin host memory"));
  assert_non_null(strstr(err, "llvm_omp_target_lock_mem: invalid range of 0 "
                              "bytes"));
  /* the call named by its line (or offset without -g), then the block */
  char want[96];
  snprintf(want, sizeof want, "llvm_omp_target_free_shared(d) at "
           "test_omp_api.c:%d: 0x", line);
  assert_non_null(strstr(err, want) ||
                  strstr(err, "llvm_omp_target_free_shared at test_omp_api+0x"));
  assert_null(strstr(err, "llvm_omp_target_free_device"));
}

static void test_dump(void **state) {
  (void)state;
  static char out[4096];
  int a[4] = {0};
  FILE *f = tmpfile();
  fflush(stdout);
  int saved = dup(1);
  dup2(fileno(f), 1);
  ompx_dump_mapping_tables();
  map_to(a, sizeof a);
  ompx_dump_mapping_tables();
  unmap(a, sizeof a);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  rewind(f);
  out[fread(out, 1, sizeof out - 1, f)] = '\0';
  fclose(f);
  assert_non_null(strstr(out, "omptarget device 0 info: OpenMP Host-Device "
                              "pointer mappings table empty\n"));
  assert_non_null(strstr(out, "omptarget device 0 info: OpenMP Host-Device "
                              "pointer mappings after block at "
                              "libomptarget:0:0:\n"));
  char row[128];
  snprintf(row, sizeof row, "info: 0x%016lx ", (unsigned long)(uintptr_t)a);
  assert_non_null(strstr(out, row));
  assert_non_null(strstr(out, " 16       1           0            unknown at "
                              "unknown:0:0\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_memset, setup),
      cmocka_unit_test_setup(test_mapped_ptr, setup),
      cmocka_unit_test_setup(test_async_depobjs, setup),
      cmocka_unit_test_setup(test_uids_lock_free, setup),
      cmocka_unit_test_setup(test_dump, setup),
  };
  return cmocka_run_group_tests_name("omp api (newer omp.h)", tests, NULL,
                                     NULL);
}
