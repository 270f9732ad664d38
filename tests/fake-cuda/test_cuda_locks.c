/* No plugin lock is held across a driver call that can block: one thread
 * is held inside a driver call by the double's gate (a stream
 * synchronisation, a pool allocation, the primary context's creation, a
 * write of the fptr table into a module), and another thread must get a
 * whole target region's work done on the same device meanwhile. */
#define _GNU_SOURCE
#include "harness.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static __tgt_offload_entry *entries;
static char big_host[2 << 20];

/* What a thread does for `target map(tofrom: ...)` and more: pool blocks
 * (hit and miss), small and staged copies, a launch on its own queue and
 * its synchronize, an event. */
static void region_work(void) {
  int *x = P.data_alloc(0, sizeof(int), NULL, 0);
  void *y = P.data_alloc(0, 4096, NULL, 0);
  void *big = P.data_alloc(0, sizeof big_host, NULL, 0);
  CHECK(x && y && big);
  int v = 5, back = 0;
  CHECK(P.data_submit(0, x, &v, sizeof v) == 0);
  CHECK(P.data_submit(0, big, big_host, sizeof big_host) == 0);
  __tgt_async_info ai = {NULL};
  void *args[2] = {x, (void *)(intptr_t)6};
  ptrdiff_t offs[2] = {0, 0};
  CHECK(P.run_team_async(0, entries[E_STORE].addr, args, offs, 2, 1, 1, 0,
                         &ai) == 0);
  CHECK(P.retrieve_async(0, &back, x, sizeof back, &ai) == 0);
  void *ev = NULL;
  CHECK(P.create_event(0, &ev) == 0 && P.record_event(0, ev, &ai) == 0);
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(back == 6);
  CHECK(P.destroy_event(0, ev) == 0);
  CHECK(P.data_delete(0, x) == 0 && P.data_delete(0, y) == 0 &&
        P.data_delete(0, big) == 0);
}

struct worker {
  void (*fn)(void *);
  void *arg;
  int done;
};

static void *worker_main(void *p) {
  struct worker *w = p;
  w->fn(w->arg);
  __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void do_region(void *arg) {
  (void)arg;
  region_work();
}

/* With the gate armed for CALL, start HELD (which makes that call) on one
 * thread; once it is held, run WORK on another and require it to finish
 * within 5 s; then let the first one go. */
static void while_held(const char *call, void (*held)(void *),
                       void (*work)(void *)) {
  gate_arm(call);
  struct worker a = {held, NULL, 0}, b = {work, NULL, 0};
  pthread_t ta, tb;
  CHECK(pthread_create(&ta, NULL, worker_main, &a) == 0);
  until_gated();
  CHECK(pthread_create(&tb, NULL, worker_main, &b) == 0);
  for (int i = 0; i < 5000 && !__atomic_load_n(&b.done, __ATOMIC_ACQUIRE); i++)
    sleep_ms(1);
  if (!__atomic_load_n(&b.done, __ATOMIC_ACQUIRE))
    fprintf(real_stderr, "a region on another thread did not finish while a "
            "thread was held in %s\n", call);
  CHECK(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE));
  CHECK(gate_waiting()); /* the first thread was held all along */
  gate_open();
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  CHECK(a.done);
}

static void setup_device(void) {
  load(1);
  load_gate();
  CHECK(P.init_device(0) == 0);
  entries = load_std()->EntriesBegin;
  region_work(); /* warm: streams, pool blocks, stager exist */
}

static void launch_and_sync(void *arg) {
  (void)arg;
  __tgt_async_info ai = {NULL};
  void *args[1] = {P.data_alloc(0, sizeof(int), NULL, 0)};
  ptrdiff_t offs[1] = {0};
  CHECK(args[0] != NULL);
  CHECK(P.run_team_async(0, entries[E_READ].addr, args, offs, 1, 1, 1, 0,
                         &ai) == 0);
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(P.data_delete(0, args[0]) == 0);
}

static void c_held_in_synchronize(void) {
  setup_device();
  while_held("cuStreamSynchronize", launch_and_sync, do_region);
}

static void alloc_new_block(void *arg) {
  (void)arg;
  void *p = P.data_alloc(0, 1000, NULL, 0); /* a class region_work lacks */
  CHECK(p != NULL);
}

static void c_held_in_pool_alloc(void) {
  setup_device();
  while_held("cuMemAlloc_v2", alloc_new_block, do_region);
}

static void init_dev0(void *arg) {
  (void)arg;
  CHECK(P.init_device(0) == 0);
}

static void init_and_region(void *arg) {
  (void)arg;
  CHECK(P.init_device(0) == 0);
  entries = load_std()->EntriesBegin;
  region_work();
}

/* The first init_device of a device is held creating its context; another
 * thread's init_device of the same device and its regions go ahead. */
static void c_held_in_context_creation(void) {
  load(1);
  load_gate();
  while_held("cuDevicePrimaryCtxRetain", init_dev0, init_and_region);
  CHECK(log_count("cuDevicePrimaryCtxRetain") == 2);
  CHECK(log_count("cuDevicePrimaryCtxRelease") == 1); /* the loser's */
}

static void set_table(void *arg) {
  (void)arg;
  static __omp_offloading_fptr_map_ty row = {1, 2};
  CHECK(P.set_fptr_map(0, 1, &row) == 0);
}

/* set_function_ptr_map is held writing the table into a module. */
static void c_held_in_fptr_write(void) {
  setup_device();
  while_held("cuModuleGetGlobal_v2", set_table, do_region);
}

CASE(held_in_synchronize)
CASE(held_in_pool_alloc)
CASE(held_in_context_creation)
CASE(held_in_fptr_write)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_held_in_synchronize),
      cmocka_unit_test(t_held_in_pool_alloc),
      cmocka_unit_test(t_held_in_context_creation),
      cmocka_unit_test(t_held_in_fptr_write),
  };
  return cmocka_run_group_tests_name("cuda plugin: no lock across driver calls",
                                     tests, NULL, NULL);
}
