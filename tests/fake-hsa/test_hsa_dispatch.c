/* Kernel dispatch in the hsa plugin: the AQL packet, arguments, globals,
 * async queues and synchronize, several host threads on one queue, and the
 * fptr table (docs/indirect-functions.md). */
#include "harness.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- dispatch ---- */

static void test_dispatch_packet(void **state) {
  __tgt_target_table *t = ready_image();
  int a[16], b[16];
  for (int i = 0; i < 16; i++)
    a[i] = i, b[i] = 100 * i;
  void *da = P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT);
  void *db = P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT);
  assert_int_equal(P.submit(0, da, a, sizeof a), 0);
  assert_int_equal(P.submit(0, db, b, sizeof b), 0);
  fake_hsa_log_clear();
  /* args[i] + offsets[i]: pass DA - 8 with offset 8. */
  void *args[] = {(char *)da - 8, db, (void *)16L};
  ptrdiff_t offs[] = {8, 0, 0};
  assert_int_equal(P.run_team(0, t->EntriesBegin[0].addr, args, offs, 3, 4,
                              64, 256),
                   0);
  assert_int_equal(P.retrieve(0, a, da, sizeof a), 0);
  for (int i = 0; i < 16; i++)
    assert_int_equal(a[i], 101 * i);
  char line[1024];
  assert_non_null(fake_hsa_log_line("dispatch(", line, sizeof line));
  /* KERNEL_DISPATCH | barrier | system acquire | system release fences. */
  assert_non_null(strstr(line, "kernel=k_add, header=0x1502, setup=1, "
                               "workgroup=64,1,1, grid=256,1,1, private=0, "
                               "group=0, kernarg=0x00005f"));
  assert_non_null(strstr(line, "kernarg_words=3,"));
  /* The copies' completion signal served the launch too. */
  assert_int_equal(fake_hsa_log_count("hsa_signal_create(1)"), 0);
  assert_logged("doorbell(queue=");
  assert_logged("hsa_signal_wait_scacquire");
  /* Kernarg buffer and signal are kept for the next launch, not freed:
   * DA, DB, the staging buffer of the copies and the kernarg buffer. */
  assert_int_equal(fake_hsa_log_count("hsa_signal_destroy"), 0);
  assert_int_equal(fake_hsa_live_allocations(), 4);

  /* Defaults: thread_limit 0 -> 256, teams 0 -> one group per CU (60). */
  fake_hsa_log_clear();
  assert_int_equal(P.run_team(0, t->EntriesBegin[0].addr, args, offs, 3, 0, 0,
                              0),
                   0);
  assert_non_null(fake_hsa_log_line("dispatch(", line, sizeof line));
  assert_non_null(strstr(line, "workgroup=256,1,1, grid=15360,1,1"));
  /* run_target_region: one team. */
  fake_hsa_log_clear();
  assert_int_equal(P.run(0, t->EntriesBegin[0].addr, args, offs, 3), 0);
  assert_non_null(fake_hsa_log_line("dispatch(", line, sizeof line));
  assert_non_null(strstr(line, "workgroup=256,1,1, grid=256,1,1"));
  /* thread_limit above the agent's maximum is clamped. */
  assert_int_equal(P.run_team(0, t->EntriesBegin[0].addr, args, offs, 3, 2,
                              5000, 0),
                   0);
  assert_int_equal(fake_hsa_log_count("workgroup=1024,1,1, grid=2048,1,1"), 1);
  assert_int_equal(P.retrieve(0, a, da, sizeof a), 0);
  for (int i = 0; i < 16; i++)
    assert_int_equal(a[i], 401 * i);
}

static void test_many_args(void **state) {
  __tgt_target_table *t = ready_image();
  long out = 0;
  void *dout = P.alloc(0, sizeof out, NULL, TARGET_ALLOC_DEFAULT);
  void *args[10] = {dout};
  ptrdiff_t offs[10] = {0};
  for (int i = 1; i < 10; i++)
    args[i] = (void *)(long)(i * i);
  assert_int_equal(P.run_team(0, t->EntriesBegin[5].addr, args, offs, 10, 1,
                              1, 0),
                   0);
  assert_int_equal(P.retrieve(0, &out, dout, sizeof out), 0);
  assert_int_equal(out, 285); /* 1+4+...+81 */
  assert_int_equal(fake_hsa_log_count("kernarg_words=10,"), 1);
}

static void test_bad_entry(void **state) {
  ready_image();
  int dummy;
  capture_start();
  int rc = P.run(0, &dummy, NULL, NULL, 0);
  char *err = capture_end();
  assert_int_equal(rc, OFFLOAD_FAIL);
  assert_non_null(strstr(err, "is not a kernel loaded on hsa device 0"));
}

static void test_globals(void **state) {
  __tgt_target_table *t = ready_image();
  int out = 0;
  void *dout = P.alloc(0, sizeof out, NULL, TARGET_ALLOC_DEFAULT);
  void *args[] = {dout};
  ptrdiff_t offs[] = {0};
  assert_int_equal(P.run(0, t->EntriesBegin[2].addr, args, offs, 1), 0);
  assert_int_equal(P.retrieve(0, &out, dout, sizeof out), 0);
  assert_int_equal(out, 6);
  int v = 40;
  assert_int_equal(P.submit(0, t->EntriesBegin[1].addr, &v, sizeof v), 0);
  assert_int_equal(P.run(0, t->EntriesBegin[2].addr, args, offs, 1), 0);
  assert_int_equal(P.retrieve(0, &out, dout, sizeof out), 0);
  assert_int_equal(out, 41);
  assert_int_equal(host_counter, 5); /* the host copy is untouched */
  /* k_inc_counter is marked generic mode with a 128-wide default: a
   * thread_limit gets one more wavefront, none gives the image's size. */
  char line[1024];
  assert_non_null(fake_hsa_log_line("kernel=k_inc_counter", line, sizeof line));
  assert_non_null(strstr(line, "workgroup=128,1,1, grid=128,1,1"));
  fake_hsa_log_clear();
  assert_int_equal(P.run_team(0, t->EntriesBegin[2].addr, args, offs, 1, 3,
                              100, 0),
                   0);
  assert_non_null(fake_hsa_log_line("kernel=k_inc_counter", line, sizeof line));
  assert_non_null(strstr(line, "workgroup=164,1,1, grid=492,1,1"));
}

static void test_async(void **state) {
  __tgt_target_table *t = ready_image();
  int a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, r[4] = {0};
  void *da = P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT);
  void *db = P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT);
  __tgt_async_info ai = {NULL};
  fake_hsa_log_clear();
  assert_int_equal(P.submit_async(0, da, a, sizeof a, &ai), 0);
  assert_non_null(ai.Queue);
  assert_int_equal(P.submit_async(0, db, b, sizeof b, &ai), 0);
  void *args[] = {da, db, (void *)4L};
  ptrdiff_t offs[3] = {0};
  assert_int_equal(P.run_team_async(0, t->EntriesBegin[0].addr, args, offs, 3,
                                    1, 4, 0, &ai),
                   0);
  assert_int_equal(P.retrieve_async(0, r, da, sizeof r, &ai), 0);
  /* The second copy depends on the first, the retrieve on the kernel. */
  assert_logged("size=16, deps=1) = 0x0");
  /* Nothing copied back before synchronize. */
  assert_int_equal(r[0], 0);
  assert_int_equal(P.sync(0, &ai), 0);
  assert_null(ai.Queue);
  int want[4] = {11, 22, 33, 44};
  assert_memory_equal(r, want, sizeof r);
  /* Four operations in flight at once: four signals, three staging
   * buffers and a kernarg buffer, all kept for reuse after the
   * synchronize (and released when the plugin is unloaded). */
  assert_int_equal(fake_hsa_log_count("hsa_signal_create"), 4);
  assert_int_equal(fake_hsa_log_count("hsa_signal_destroy"), 0);
  assert_int_equal(fake_hsa_live_allocations(), 2 + 3 + 1);
  /* The same again: nothing new. */
  fake_hsa_log_clear();
  assert_int_equal(P.submit_async(0, da, a, sizeof a, &ai), 0);
  assert_int_equal(P.retrieve_async(0, r, da, sizeof r, &ai), 0);
  assert_int_equal(P.sync(0, &ai), 0);
  assert_int_equal(fake_hsa_log_count("hsa_signal_create"), 0);
  assert_int_equal(fake_hsa_log_count("hsa_amd_memory_pool_allocate"), 0);
  assert_int_equal(P.sync(0, &ai), 0); /* nothing pending */
}

/* Several host threads share the device's one AQL queue: packet slots are
 * reserved atomically and published header-last, so every launch runs once
 * and the values add up. */
#define NTHREADS 4
#define NLAUNCH 25
struct worker {
  void *kernel;
  void *da, *db;
  int rc;
};

static void *launch_many(void *arg) {
  struct worker *w = arg;
  void *args[] = {w->da, w->db, (void *)16L};
  ptrdiff_t offs[3] = {0};
  for (int i = 0; i < NLAUNCH && w->rc == 0; i++)
    w->rc = P.run_team(0, w->kernel, args, offs, 3, 1, 16, 0);
  return NULL;
}

static void test_concurrent_launches(void **state) {
  __tgt_target_table *t = ready_image();
  struct worker w[NTHREADS];
  pthread_t th[NTHREADS];
  int a[16], b[16];
  for (int k = 0; k < NTHREADS; k++) {
    for (int i = 0; i < 16; i++)
      a[i] = i, b[i] = k + 1;
    w[k] = (struct worker){t->EntriesBegin[0].addr,
                           P.alloc(0, sizeof a, NULL, TARGET_ALLOC_DEFAULT),
                           P.alloc(0, sizeof b, NULL, TARGET_ALLOC_DEFAULT), 0};
    assert_int_equal(P.submit(0, w[k].da, a, sizeof a), 0);
    assert_int_equal(P.submit(0, w[k].db, b, sizeof b), 0);
  }
  fake_hsa_log_clear();
  for (int k = 0; k < NTHREADS; k++)
    assert_int_equal(pthread_create(&th[k], NULL, launch_many, &w[k]), 0);
  for (int k = 0; k < NTHREADS; k++)
    pthread_join(th[k], NULL);
  for (int k = 0; k < NTHREADS; k++) {
    assert_int_equal(w[k].rc, 0);
    assert_int_equal(P.retrieve(0, a, w[k].da, sizeof a), 0);
    for (int i = 0; i < 16; i++)
      assert_int_equal(a[i], i + NLAUNCH * (k + 1));
  }
  assert_int_equal(fake_hsa_log_count("dispatch(queue="), NTHREADS * NLAUNCH);
  assert_int_equal(fake_hsa_log_count(" error: "), 0);
}

/* ---- the fptr table (docs/indirect-functions.md) ---- */

static int cmp_row(const void *a, const void *b) {
  const __omp_offloading_fptr_map_ty *x = a, *y = b;
  return x->host_ptr < y->host_ptr ? -1 : x->host_ptr > y->host_ptr;
}

static void test_fptr_table(void **state) {
  __tgt_target_table *t = ready_image();
  int out = 0;
  long translated = 0;
  void *dout = P.alloc(0, sizeof out, NULL, TARGET_ALLOC_DEFAULT);
  void *dtr = P.alloc(0, sizeof translated, NULL, TARGET_ALLOC_DEFAULT);
  void *args[] = {(void *)host_twice, dout, dtr};
  ptrdiff_t offs[3] = {0};
  /* Before the table: the pointer stays the host one. */
  assert_int_equal(P.run(0, t->EntriesBegin[4].addr, args, offs, 3), 0);
  assert_int_equal(P.retrieve(0, &translated, dtr, sizeof translated), 0);
  assert_int_equal(translated, 0);
  __omp_offloading_fptr_map_ty rows[3] = {
      {(int64_t)(intptr_t)host_twice,
       (int64_t)(intptr_t)t->EntriesBegin[3].addr},
      {(int64_t)(intptr_t)host_k_add, 0x1111},
      {(int64_t)(intptr_t)host_k_inc, 0x2222}};
  qsort(rows, 3, sizeof rows[0], cmp_row);
  fake_hsa_log_clear();
  assert_int_equal(P.set_fptr(0, 3, rows), 0);
  assert_logged("hsa_amd_memory_pool_allocate(pool=gfx906#0, size=48) = 0x0");
  assert_logged(", __omp_offloading_fptr_map_p) = 0x0");
  assert_logged(", __omp_offloading_fptr_map_size) = 0x0");
  /* Table (48 bytes), then its address and size (8 bytes each). */
  assert_int_equal(fake_hsa_log_count("size=48, deps=0) = 0x0"), 1);
  assert_int_equal(fake_hsa_log_count("src_agent=cpu, size=8, deps="), 2);
  assert_int_equal(P.run(0, t->EntriesBegin[4].addr, args, offs, 3), 0);
  assert_int_equal(P.retrieve(0, &out, dout, sizeof out), 0);
  assert_int_equal(P.retrieve(0, &translated, dtr, sizeof translated), 0);
  assert_int_equal(translated, 1);
  assert_int_equal(out, 42); /* device version: 2*21, host one gives 1042 */
  assert_logged("translate_fptr(executable=0x");
  assert_logged(", table=0x00005e0000");
  assert_logged(", 3 entries, 0x");
}

static void test_fptr_table_before_load(void **state) {
  load_plugin();
  assert_int_equal(P.ndev(), 1);
  assert_int_equal(P.init(0), 0);
  __omp_offloading_fptr_map_ty row = {0x1000, 0x2000};
  assert_int_equal(P.set_fptr(0, 1, &row), 0);
  read_image(co906);
  fake_hsa_log_clear();
  __tgt_target_table *t = P.load(0, &image);
  assert_non_null(t);
  /* The image loaded after the table still gets it. */
  assert_logged(", __omp_offloading_fptr_map_p) = 0x0");
  assert_int_equal(fake_hsa_log_count("src_agent=cpu, size=8, deps="), 2);
}

int main(void) {
  harness_paths();
  const struct CMUnitTest tests[] = {
      HSA_TEST(test_dispatch_packet),
      HSA_TEST(test_many_args),
      HSA_TEST(test_bad_entry),
      HSA_TEST(test_globals),
      HSA_TEST(test_async),
      HSA_TEST(test_concurrent_launches),
      HSA_TEST(test_fptr_table),
      HSA_TEST(test_fptr_table_before_load),
  };
  return cmocka_run_group_tests_name("hsa plugin: dispatch", tests, NULL, NULL);
}
