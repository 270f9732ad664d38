/* Streams and events of the cuda plugin with several host threads, and
 * failures that surface only when a stream is synchronized: an event wait
 * holds for the record made before it, two threads waiting for one stream
 * see its work in order, a kernel that faults fails the synchronize. */
#define _GNU_SOURCE
#include "harness.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* cuStreamWaitEvent waits for the event's newest record at the time of the
 * wait; recording the event again later does not make the waiter wait for
 * the later work. */
static void c_event_wait_captured(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  int *d = P.data_alloc(0, sizeof(int), NULL, 0);
  int v1 = 1, v2 = 2, back = 0;
  void *ev = NULL;
  CHECK(P.create_event(0, &ev) == 0);
  __tgt_async_info a1 = {NULL}, a2 = {NULL};
  CHECK(P.submit_async(0, d, &v1, sizeof v1, &a1) == 0);
  CHECK(P.record_event(0, ev, &a1) == 0);
  CHECK(P.wait_event(0, ev, &a2) == 0);
  CHECK(P.submit_async(0, d, &v2, sizeof v2, &a1) == 0);
  CHECK(P.record_event(0, ev, &a1) == 0);
  CHECK(P.retrieve_async(0, &back, d, sizeof back, &a2) == 0);
  CHECK(P.synchronize(0, &a2) == 0);
  CHECK(back == 1); /* the second copy is not part of what a2 waited for */
  CHECK(P.synchronize(0, &a1) == 0);
  CHECK(P.data_retrieve(0, &back, d, sizeof back) == 0);
  CHECK(back == 2);
  CHECK(P.destroy_event(0, ev) == 0);
}

struct syncer {
  __tgt_async_info *ai;
  int rc, done;
};

static void *sync_thread(void *arg) {
  struct syncer *s = arg;
  s->rc = P.synchronize(0, s->ai);
  __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

/* Thread A waits for stream 1 and is held inside its first kernel; thread
 * B waits for stream 2, which waits for an event recorded at the end of
 * stream 1.  B must not run stream 1's second kernel while A is still in
 * the first: B finishes after A, and the kernels' stores land in order. */
static void c_two_threads_one_stream(void) {
  load(1);
  load_gate();
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  int *x = P.data_alloc(0, sizeof(int), NULL, 0);
  int seen = 0;
  void *ev = NULL;
  CHECK(P.create_event(0, &ev) == 0);
  __tgt_async_info a1 = {NULL}, a2 = {NULL};
  void *args1[2] = {x, (void *)(intptr_t)1}, *args2[2] = {x, (void *)(intptr_t)2};
  ptrdiff_t offs[2] = {0, 0};
  CHECK(P.run_team_async(0, e[E_STORE].addr, args1, offs, 2, 1, 1, 0, &a1) == 0);
  CHECK(P.run_team_async(0, e[E_STORE].addr, args2, offs, 2, 1, 1, 0, &a1) == 0);
  CHECK(P.record_event(0, ev, &a1) == 0);
  CHECK(P.wait_event(0, ev, &a2) == 0);
  CHECK(P.retrieve_async(0, &seen, x, sizeof seen, &a2) == 0);
  gate_arm("run k_store");
  struct syncer sa = {&a1, -1, 0}, sb = {&a2, -1, 0};
  pthread_t ta, tb;
  CHECK(pthread_create(&ta, NULL, sync_thread, &sa) == 0);
  until_gated();
  CHECK(pthread_create(&tb, NULL, sync_thread, &sb) == 0);
  sleep_ms(200);
  int b_early = __atomic_load_n(&sb.done, __ATOMIC_ACQUIRE);
  gate_open();
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  CHECK(sa.rc == 0 && sb.rc == 0);
  CHECK(!b_early); /* B waited for the stream A was running */
  int last = 0;
  CHECK(P.data_retrieve(0, &last, x, sizeof last) == 0);
  CHECK(last == 2); /* stream 1's stores in order */
  CHECK(seen == 2); /* B saw the end of stream 1 */
  CHECK(P.destroy_event(0, ev) == 0);
}

/* A kernel that faults on the device: the launch is accepted, the error
 * comes from the synchronize, and the plugin reports it and fails. */
static void c_fault_at_synchronize(void) {
  load(1); /* FAKE_CUDA_KERNEL_FAULT=k_store */
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  int *x = P.data_alloc(0, sizeof(int), NULL, 0);
  int back = -7;
  __tgt_async_info ai = {NULL};
  void *args[2] = {x, (void *)(intptr_t)5};
  ptrdiff_t offs[2] = {0, 0};
  CHECK(P.run_team_async(0, e[E_STORE].addr, args, offs, 2, 1, 1, 0, &ai) == 0);
  CHECK(P.retrieve_async(0, &back, x, sizeof back, &ai) == 0);
  void *q = ai.Queue;
  CHECK(P.synchronize(0, &ai) == OFFLOAD_FAIL);
  CHECK(ai.Queue == NULL);
  char want[200];
  snprintf(want, sizeof want, "cuda: error: cuStreamSynchronize failed on "
           "device 0 for stream 0x%016lx: CUDA_ERROR_ILLEGAL_ADDRESS",
           (unsigned long)(uintptr_t)q);
  CHECK(strstr(errtext(), want));
  /* A synchronous launch reports the same, naming the kernel. */
  CHECK(P.run_team(0, e[E_STORE].addr, args, offs, 2, 1, 1, 0) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "cuStreamSynchronize failed on device 0 for kernel "
                          "'k_store' on stream"));
}

CASE(event_wait_captured)
CASE(two_threads_one_stream)
CASE(fault_at_synchronize, "FAKE_CUDA_KERNEL_FAULT", "k_store", )

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_event_wait_captured),
      cmocka_unit_test(t_two_threads_one_stream),
      cmocka_unit_test(t_fault_at_synchronize),
  };
  return cmocka_run_group_tests_name("cuda plugin: streams", tests, NULL, NULL);
}
