/* Kernel launch in the cuda plugin: geometry and arguments, a launch
 * failing, async streams and their reuse, and events. */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static void c_launch(void) {
  load(1); /* FAKE_CUDA_SMS=4 */
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  int *out = P.data_alloc(0, sizeof(int), NULL, 0);
  log_clear();
  /* args[i] + offsets[i] is what the kernel gets. */
  void *args[2] = {(char *)out - 8, (void *)(intptr_t)42};
  ptrdiff_t offs[2] = {8, 0};
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 0, 0, 0) == 0);
  int got = 0;
  CHECK(P.data_retrieve(0, &got, out, sizeof got) == 0);
  CHECK(got == 42);
  char want[256];
  snprintf(want, sizeof want, "name=k_store grid=(16,1,1) block=(128,1,1) "
           "shmem=0 stream=");
  CHECK(log_count(want) == 1);
  snprintf(want, sizeof want, "nparams=2 args=0x%016lx,0x000000000000002a",
           (unsigned long)(uintptr_t)out);
  CHECK(log_count(want) == 1);
  CHECK(log_count("run k_store (2 args)") == 1);
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 3, 64, 0) == 0);
  CHECK(log_count("grid=(3,1,1) block=(64,1,1)") == 1);
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 0, 0, 300) == 0);
  CHECK(log_count("grid=(3,1,1) block=(128,1,1)") == 1);
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 0, 0, 100000) == 0);
  CHECK(log_count("grid=(16,1,1) block=(128,1,1)") == 2);
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 7, 5000, 0) == 0);
  CHECK(log_count("grid=(7,1,1) block=(1024,1,1)") == 1);
  CHECK(P.run_region(0, e[E_STORE].addr, args, offs, 2) == 0);
  CHECK(log_count("grid=(1,1,1) block=(128,1,1)") == 1);
  /* A generic-mode kernel (k_read_counter_exec_mode = 1) gets a warp more
   * for its main thread, and one team per loop iteration. */
  void *a1[1] = {out};
  CHECK(P.run_team(0, e[E_READ].addr, a1, offs, 1, 2, 64, 0) == 0);
  CHECK(log_count("name=k_read_counter grid=(2,1,1) block=(96,1,1)") == 1);
  CHECK(P.run_team(0, e[E_READ].addr, a1, offs, 1, 0, 0, 10) == 0);
  CHECK(log_count("name=k_read_counter grid=(10,1,1) block=(128,1,1)") == 1);
  /* Eight arguments, all values. */
  long *lo = P.data_alloc(0, sizeof(long), NULL, 0);
  void *a8[9] = {lo};
  ptrdiff_t o8[9] = {0};
  for (int i = 1; i < 9; i++)
    a8[i] = (void *)(intptr_t)i;
  CHECK(P.run_team(0, e[E_MANY].addr, a8, o8, 9, 1, 1, 0) == 0);
  long lv = 0;
  CHECK(P.data_retrieve(0, &lv, lo, sizeof lv) == 0);
  CHECK(lv == 1 + 4 + 9 + 16 + 25 + 36 + 49 + 64);
  CHECK(log_count("nparams=9") == 1);
  /* More arguments than the launch keeps on its stack. */
  void *a21[21] = {lo};
  ptrdiff_t o21[21] = {0};
  for (int i = 1; i < 21; i++)
    a21[i] = (void *)(intptr_t)i;
  CHECK(P.run_team(0, e[E_WIDE].addr, a21, o21, 21, 1, 1, 0) == 0);
  CHECK(P.data_retrieve(0, &lv, lo, sizeof lv) == 0);
  CHECK(lv == 20 * 21 * 41 / 6);
  CHECK(log_count("nparams=21") == 1);
  /* Synchronous launches wait on their stream and reuse it. */
  CHECK(log_count("cuStreamCreate") <= 1);
  CHECK(log_count("cuStreamSynchronize") == 10);
}

static void c_launch_fail(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  void *args[1] = {NULL};
  ptrdiff_t offs[1] = {0};
  CHECK(P.run_team(0, e[E_READ].addr, args, offs, 1, 2, 32, 0) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "cuda: error: cuLaunchKernel failed on device 0 for "
                          "kernel 'k_read_counter' (grid 2, block 64, 1 args): "
                          "CUDA_ERROR_LAUNCH_FAILED (719): unspecified launch "
                          "failure"));
}

static void c_async(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  int in[4] = {10, 20, 30, 40};
  long res = -1;
  int *din = P.data_alloc(0, sizeof in, NULL, 0);
  long *dout = P.data_alloc(0, sizeof res, NULL, 0);
  log_clear();
  __tgt_async_info ai = {NULL};
  CHECK(P.submit_async(0, din, in, sizeof in, &ai) == 0);
  CHECK(ai.Queue != NULL);
  void *q = ai.Queue;
  void *args[3] = {dout, din, (void *)(intptr_t)4};
  ptrdiff_t offs[3] = {0, 0, 0};
  CHECK(P.run_team_async(0, e[E_SUM].addr, args, offs, 3, 1, 1, 0, &ai) == 0);
  CHECK(P.retrieve_async(0, &res, dout, sizeof res, &ai) == 0);
  CHECK(ai.Queue == q);
  CHECK(res == -1); /* nothing ran yet: the test double waits for a sync */
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(ai.Queue == NULL);
  CHECK(res == 100);
  char want[128];
  snprintf(want, sizeof want, "stream=0x%016lx", (unsigned long)(uintptr_t)q);
  CHECK(log_count("cuStreamCreate dev=0 flags=1") == 1); /* non-blocking */
  CHECK(log_count("cuMemcpyHtoDAsync_v2") == 1);
  CHECK(log_count("cuMemcpyDtoHAsync_v2") == 1);
  CHECK(log_count(want) == 4); /* H2D, launch, D2H, synchronize */
  /* The stream goes back to the pool: the next queue reuses it. */
  CHECK(P.submit_async(0, din, in, sizeof in, &ai) == 0);
  CHECK(ai.Queue == q);
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(log_count("cuStreamCreate") == 1);
  CHECK(P.synchronize(0, &ai) == 0); /* nothing queued: no call */
  CHECK(log_count("cuStreamSynchronize") == 2);
}

static void c_events(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  int *d = P.data_alloc(0, sizeof(int), NULL, 0);
  int v = 9, back = 0;
  void *ev = NULL;
  CHECK(P.create_event(0, &ev) == 0 && ev != NULL);
  __tgt_async_info a1 = {NULL}, a2 = {NULL};
  CHECK(P.submit_async(0, d, &v, sizeof v, &a1) == 0);
  CHECK(P.record_event(0, ev, &a1) == 0);
  CHECK(P.wait_event(0, ev, &a2) == 0);
  CHECK(a2.Queue != NULL && a2.Queue != a1.Queue);
  void *q1 = a1.Queue, *q2 = a2.Queue;
  CHECK(P.retrieve_async(0, &back, d, sizeof back, &a2) == 0);
  CHECK(P.synchronize(0, &a2) == 0);
  CHECK(back == 9); /* a2 waited for a1's copy through the event */
  CHECK(P.sync_event(0, ev) == 0);
  CHECK(P.synchronize(0, &a1) == 0);
  CHECK(P.destroy_event(0, ev) == 0);
  char want[160];
  snprintf(want, sizeof want, "cuEventRecord event=0x%016lx stream=0x%016lx",
           (unsigned long)(uintptr_t)ev, (unsigned long)(uintptr_t)q1);
  CHECK(log_count(want) == 1);
  snprintf(want, sizeof want, "cuStreamWaitEvent stream=0x%016lx "
           "event=0x%016lx flags=0", (unsigned long)(uintptr_t)q2,
           (unsigned long)(uintptr_t)ev);
  CHECK(log_count("cuStreamWaitEvent") == 1 && log_count(want) == 1);
  CHECK(log_count("cuEventCreate dev=0 flags=2") == 1);
  CHECK(log_count("cuEventSynchronize") == 1);
  CHECK(log_count("cuEventDestroy_v2") == 1);
}

CASE(launch, "FAKE_CUDA_SMS", "4", )
CASE(launch_fail, "FAKE_CUDA_LAUNCH_FAIL", "1", )
CASE(async)
CASE(events)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_launch),
      cmocka_unit_test(t_launch_fail),
      cmocka_unit_test(t_async),
      cmocka_unit_test(t_events),
  };
  return cmocka_run_group_tests_name("cuda plugin: launch", tests, NULL, NULL);
}
