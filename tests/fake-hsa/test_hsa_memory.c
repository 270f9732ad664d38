/* Memory and copies in the hsa plugin: allocation kinds, allocation and
 * copy failures, queue creation failing, device-to-device exchange,
 * staged copies, and the core-HSA fallback without the AMD extension. */
#include "harness.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- memory ---- */

static void test_alloc_kinds(void **state) {
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  assert_int_equal(P.init(0), 0);
  void *dv = P.alloc(0, 100, NULL, TARGET_ALLOC_DEFAULT);
  void *dd = P.alloc(0, 100, NULL, TARGET_ALLOC_DEVICE);
  void *hh = P.alloc(0, 100, NULL, TARGET_ALLOC_HOST);
  void *sh = P.alloc(0, 100, NULL, TARGET_ALLOC_SHARED);
  uintptr_t gb = FAKE_HSA_GPU_BASE, sb = FAKE_HSA_SYS_BASE;
  assert_true((uintptr_t)dv >= gb && (uintptr_t)dv < gb + FAKE_HSA_GPU_STRIDE);
  assert_true((uintptr_t)dd >= gb && (uintptr_t)dd < gb + FAKE_HSA_GPU_STRIDE);
  assert_true((uintptr_t)hh >= sb && (uintptr_t)hh < sb + FAKE_HSA_SYS_SIZE);
  assert_true((uintptr_t)sh >= sb && (uintptr_t)sh < sb + FAKE_HSA_SYS_SIZE);
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_pool_allocate(pool=gfx906#0, size=100) = 0x0"), 2);
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_pool_allocate(pool=system, size=100) = 0x0"), 2);
  /* HOST/SHARED memory is opened to the agent. */
  assert_int_equal(fake_hsa_log_count("hsa_amd_agents_allow_access(agents=gfx906#0"), 2);
  assert_int_equal(fake_hsa_log_count("hsa_amd_agents_allow_access"), 2);
  int live = fake_hsa_live_allocations();
  assert_int_equal(P.del(0, dv), 0);
  assert_int_equal(P.del(0, hh), 0);
  assert_int_equal(fake_hsa_live_allocations(), live - 2);
  capture_start();
  assert_int_equal(P.del(0, dv), OFFLOAD_FAIL); /* double free */
  char *err = capture_end();
  assert_non_null(strstr(err, "hsa_amd_memory_pool_free failed (status 0x1001: "
                              "HSA_STATUS_ERROR_INVALID_ARGUMENT"));
}

static void test_alloc_fails(void **state) {
  setenv("FAKE_HSA_ALLOC_FAIL_AFTER", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  assert_int_equal(P.init(0), 0);
  assert_non_null(P.alloc(0, 64, NULL, TARGET_ALLOC_DEFAULT));
  capture_start();
  void *p = P.alloc(0, 64, NULL, TARGET_ALLOC_DEFAULT);
  char *err = capture_end();
  assert_null(p);
  assert_non_null(strstr(err, "hsa: error: hsa_amd_memory_pool_allocate failed "
                              "(status 0x1008: HSA_STATUS_ERROR_OUT_OF_RESOURCES"));
  assert_non_null(strstr(err, "64 bytes of data_alloc"));
}

static void test_copy_fails(void **state) {
  setenv("FAKE_HSA_COPY_FAIL_AFTER", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  int v[4] = {1, 2, 3, 4}, r[4] = {9, 9, 9, 9};
  void *d = P.alloc(0, sizeof v, NULL, TARGET_ALLOC_DEFAULT);
  assert_int_equal(P.submit(0, d, v, sizeof v), 0);
  capture_start();
  int rc = P.retrieve(0, r, d, sizeof r);
  char *err = capture_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(err, "hsa: error: async copy: completion signal 0x"));
  assert_non_null(strstr(err, "ended at -1, the operation failed"));
  assert_int_equal(r[0], 9); /* nothing copied back */
  /* The staging buffer and signal are not lost: kept for the next copy,
   * which took them (one buffer, one signal for both copies). */
  assert_int_equal(fake_hsa_live_allocations(), 2);
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_pool_allocate(pool=system"), 1);
  assert_int_equal(fake_hsa_log_count("hsa_signal_create(1)"), 1);
}

static void test_queue_create_fails(void **state) {
  setenv("FAKE_HSA_QUEUE_FAIL", "1", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  capture_start();
  int rc = P.init(0);
  char *err = capture_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(err, "hsa: error: hsa_queue_create failed (status 0x1008: "
                              "HSA_STATUS_ERROR_OUT_OF_RESOURCES: fake out of "
                              "resources): hsa device 0 (gfx906), 1024 packets"));
  /* Other calls on the device fail cleanly too. */
  capture_start();
  void *p = P.alloc(0, 8, NULL, TARGET_ALLOC_DEFAULT);
  capture_end();
  assert_null(p);
}

/* Two GPUs: device memory is opened to the peer at allocation, and a
 * device-to-device copy is one async copy between the agents. */
static void test_data_exchange(void **state) {
  setenv("FAKE_HSA_GPUS", "gfx906,gfx906", 1);
  load_plugin();
  assert_int_equal(P.ndev(), 2);
  assert_int_equal(P.exchangable(0, 1), 1);
  int v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8] = {0};
  void *d0 = P.alloc(0, sizeof v, NULL, TARGET_ALLOC_DEFAULT);
  void *d1 = P.alloc(1, sizeof v, NULL, TARGET_ALLOC_DEFAULT);
  char want[128];
  snprintf(want, sizeof want, "hsa_amd_agents_allow_access(agents=gfx906#1, "
           "ptr=0x%016lx) = 0x0", (unsigned long)(uintptr_t)d0);
  assert_logged(want);
  assert_int_equal(P.submit(0, d0, v, sizeof v), 0);
  fake_hsa_log_clear();
  assert_int_equal(P.exchange(0, d0, 1, d1, sizeof v), 0);
  snprintf(want, sizeof want, "hsa_amd_memory_async_copy(dst=0x%016lx, "
           "dst_agent=gfx906#1, src=0x%016lx, src_agent=gfx906#0, size=32",
           (unsigned long)(uintptr_t)d1, (unsigned long)(uintptr_t)d0);
  assert_logged(want);
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_async_copy"), 1);
  assert_int_equal(P.retrieve(1, r, d1, sizeof r), 0);
  assert_memory_equal(v, r, sizeof v);
  /* One GPU: no peers, nothing opened. */
  assert_int_equal(P.exchangable(0, 2), 0);
}

static void test_copies(void **state) {
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  int src[64], dst[64];
  for (int i = 0; i < 64; i++)
    src[i] = i * 3;
  void *d = P.alloc(0, sizeof src, NULL, TARGET_ALLOC_DEFAULT);
  assert_non_null(d);
  /* Fresh device memory holds the double's poison, not zeros. */
  assert_int_equal(P.retrieve(0, dst, d, sizeof dst), 0);
  assert_int_equal((unsigned char)((char *)dst)[0], 0xa5);
  /* Host memory goes through an opened fine-grained staging buffer... */
  assert_logged("hsa_amd_memory_pool_allocate(pool=system, size=256) = 0x0");
  assert_logged("hsa_amd_agents_allow_access(agents=gfx906#0");
  fake_hsa_log_clear();
  assert_int_equal(P.submit(0, d, src, sizeof src), 0);
  /* ...kept for the next copy. */
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_pool_allocate"), 0);
  assert_logged("dst_agent=gfx906#0, src=0x00005f");
  assert_logged("src_agent=cpu, size=256, deps=0) = 0x0");
  assert_logged("hsa_signal_wait_scacquire");
  memset(dst, 0, sizeof dst);
  assert_int_equal(P.retrieve(0, dst, d, sizeof dst), 0);
  assert_memory_equal(src, dst, sizeof src);
  assert_logged("dst_agent=cpu, src=0x00005e");
  /* One staging buffer served every copy and is kept for the next. */
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_pool_allocate"), 0);
  assert_int_equal(fake_hsa_live_allocations(), 2);
}

static void test_copies_without_amd_ext(void **state) {
  setenv("OMPEMU_HSA_AMD_EXT", "0", 1);
  __tgt_target_table *t = ready_image();
  assert_logged("hsa_agent_iterate_regions(gfx906#0)");
  assert_int_equal(fake_hsa_log_count("hsa_amd_"), 0);
  int a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {10, 20, 30, 40, 50, 60, 70, 80};
  void *da = P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT);
  void *db = P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT);
  assert_logged("hsa_memory_allocate(pool=gfx906#0, size=32) = 0x0");
  assert_int_equal(P.submit(0, da, a, sizeof a), 0);
  assert_int_equal(P.submit(0, db, b, sizeof b), 0);
  assert_logged("hsa_memory_copy(dst=0x00005e");
  long n = 8;
  void *args[] = {da, db, (void *)n};
  ptrdiff_t offs[3] = {0, 0, 0};
  /* Kernarg from the GPU agent's own kernarg region. */
  assert_int_equal(P.run_team(0, t->EntriesBegin[0].addr, args, offs, 3, 1, 1, 0), 0);
  assert_logged("hsa_memory_allocate(pool=system, size=24) = 0x0");
  assert_int_equal(P.retrieve(0, a, da, sizeof a), 0);
  for (int i = 0; i < 8; i++)
    assert_int_equal(a[i], 11 * (i + 1));
  assert_int_equal(P.del(0, da), 0);
  assert_logged("hsa_memory_free(0x00005e");
}

/* A runtime without the AMD extension (the noamd build of the double, a
 * separate copy loaded by path): the plugin notes it, and allocates, copies
 * and launches with the core API.  That copy's log goes to FAKE_HSA_LOG. */
static void test_runtime_without_amd_symbols(void **state) {
  char logp[] = "/tmp/test-hsa-noamd-XXXXXX";
  int fd = mkstemp(logp);
  assert_true(fd >= 0);
  close(fd);
  setenv("FAKE_HSA_LOG", logp, 1);
  setenv("OMPEMU_HSA_LIBRARY", noamd_path, 1);
  trace_to_file();
  __tgt_target_table *t = ready_image();
  int a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  void *da = P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT);
  void *db = P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT);
  assert_int_equal(P.submit(0, da, a, sizeof a), 0);
  assert_int_equal(P.submit(0, db, b, sizeof b), 0);
  void *args[] = {da, db, (void *)4L};
  ptrdiff_t offs[3] = {0};
  assert_int_equal(P.run(0, t->EntriesBegin[0].addr, args, offs, 3), 0);
  assert_int_equal(P.retrieve(0, a, da, sizeof a), 0);
  int want[4] = {6, 8, 10, 12};
  assert_memory_equal(a, want, sizeof a);
  assert_int_equal(P.del(0, da), 0);
  dlclose(P.h); /* shut the copy down before reading its log */
  P.h = NULL;
  const char *tr = slurp(trace_path);
  assert_non_null(strstr(tr, "libhsa-noamd.so lacks hsa_amd_agent_iterate_memory_pools: "
                             "using core HSA regions and hsa_memory_copy"));
  assert_non_null(strstr(tr, "(core regions, no AMD extension)"));
  const char *log = slurp(logp);
  assert_non_null(strstr(log, "hsa_agent_iterate_regions(gfx906#0)"));
  assert_non_null(strstr(log, "hsa_memory_allocate(pool=gfx906#0, size=16) = 0x0"));
  assert_non_null(strstr(log, "hsa_memory_copy(dst=0x00005e"));
  assert_non_null(strstr(log, "dispatch(queue="));
  assert_non_null(strstr(log, "hsa_memory_free(0x00005e"));
  assert_non_null(strstr(log, "hsa_shut_down() = 0x0 refcount=0"));
  assert_null(strstr(log, "hsa_amd_"));
  /* The linked copy of the double was never touched. */
  assert_int_equal(fake_hsa_log_count("hsa_"), 0);
  unlink(logp);
  unlink(trace_path);
}

int main(void) {
  harness_paths();
  const struct CMUnitTest tests[] = {
      HSA_TEST(test_alloc_kinds),
      HSA_TEST(test_alloc_fails),
      HSA_TEST(test_copy_fails),
      HSA_TEST(test_queue_create_fails),
      HSA_TEST(test_data_exchange),
      HSA_TEST(test_copies),
      HSA_TEST(test_copies_without_amd_ext),
      HSA_TEST(test_runtime_without_amd_symbols),
  };
  return cmocka_run_group_tests_name("hsa plugin: memory", tests, NULL, NULL);
}
