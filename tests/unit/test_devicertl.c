/* Unit tests of the emu device runtime (src/plugins/emu/devicertl.c): the
 * lookup table, __kmpc_target_translate_fptr (found, not found, 10 000
 * entries, 8 threads at once, by context and by caller address), and the
 * device queries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ompemu/abi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"
#include "devicertl.h"

#define N 10000

/* The two weak globals of a fake image, and its fake identity. */
static __omp_offloading_fptr_map_ty *map_p;
static uint64_t map_size;
static __omp_offloading_fptr_map_ty table[N];
static const struct emu_image *const IMG = (const void *)0x5000;

static int setup(void **state) {
  (void)state;
  for (int i = 0; i < N; i++) {
    table[i].host_ptr = 0x400000 + (int64_t)i * 16;
    table[i].tgt_ptr = (int64_t)(EMU_CODE_BASE + 0x1000 + (uint64_t)i * 32);
  }
  devicertl_image_add(IMG, 0, EMU_CODE_BASE + 0x7000000, 0x1000, &map_p,
                      &map_size);
  return 0;
}

static void test_lookup(void **state) {
  (void)state;
  assert_ptr_equal(devicertl_lookup("__kmpc_target_translate_fptr"),
                   (void *)__kmpc_target_translate_fptr);
  assert_non_null(devicertl_lookup("omp_is_initial_device"));
  assert_non_null(devicertl_lookup("omp_get_device_num"));
  assert_non_null(devicertl_lookup("llvm_omp_get_dynamic_shared"));
  assert_null(devicertl_lookup("omp_get_num_threads")); /* libomp's */
  assert_null(devicertl_lookup("printf"));
  assert_null(devicertl_lookup(NULL));
  void *(*dyn)(void) = (void *(*)(void))devicertl_lookup(
      "llvm_omp_get_dynamic_shared");
  assert_null(dyn());
}

static void test_queries_by_context(void **state) {
  (void)state;
  int (*initial)(void) = (int (*)(void))devicertl_lookup("omp_is_initial_device");
  int (*devnum)(void) = (int (*)(void))devicertl_lookup("omp_get_device_num");
  assert_int_equal(initial(), 1); /* a host thread */
  struct emu_devctx c = {3, NULL, 0, 0, 0};
  emu_set_ctx(&c);
  assert_int_equal(initial(), 0);
  assert_int_equal(devnum(), 3);
  emu_set_ctx(NULL);
}

static void test_translate(void **state) {
  (void)state;
  struct emu_devctx c = {0, IMG, 0, 0, 0};
  emu_set_ctx(&c);
  /* No table yet: everything unchanged. */
  assert_ptr_equal(__kmpc_target_translate_fptr((void *)0x400000),
                   (void *)0x400000);
  devicertl_fptr_assign(&map_p, &map_size, table, (void *)(uintptr_t)N);
  assert_ptr_equal(map_p, table);
  assert_int_equal(map_size, N);
  for (int i = 0; i < N; i++)
    assert_int_equal((intptr_t)__kmpc_target_translate_fptr(
                         (void *)(intptr_t)table[i].host_ptr),
                     table[i].tgt_ptr);
  /* Not in the table: between entries, below, above, NULL. */
  assert_ptr_equal(__kmpc_target_translate_fptr((void *)0x400008),
                   (void *)0x400008);
  assert_ptr_equal(__kmpc_target_translate_fptr((void *)0x3ffff0),
                   (void *)0x3ffff0);
  assert_ptr_equal(__kmpc_target_translate_fptr((void *)0x500000),
                   (void *)0x500000);
  assert_null(__kmpc_target_translate_fptr(NULL));
  /* A smaller table: entries past its size are no longer found. */
  devicertl_fptr_assign(&map_p, &map_size, table, (void *)(uintptr_t)10);
  assert_int_equal((intptr_t)__kmpc_target_translate_fptr((void *)0x400090),
                   table[9].tgt_ptr);
  assert_ptr_equal(__kmpc_target_translate_fptr((void *)0x4000a0),
                   (void *)0x4000a0);
  devicertl_fptr_assign(&map_p, &map_size, table, (void *)(uintptr_t)N);
  emu_set_ctx(NULL);
  /* A host thread with no context and no device caller: unchanged. */
  assert_ptr_equal(__kmpc_target_translate_fptr((void *)0x400000),
                   (void *)0x400000);
}

static void *thread_main(void *arg) {
  intptr_t k = (intptr_t)arg;
  struct emu_devctx c = {0, IMG, 0, 0, 0};
  emu_set_ctx(&c);
  long bad = 0;
  for (int r = 0; r < 20; r++)
    for (int i = (int)k; i < N; i += 3) {
      void *h = (void *)(intptr_t)table[i].host_ptr;
      if ((intptr_t)__kmpc_target_translate_fptr(h) != table[i].tgt_ptr)
        bad++;
      if (__kmpc_target_translate_fptr((char *)h + 1) != (char *)h + 1)
        bad++;
    }
  return (void *)bad;
}

static void test_translate_threads(void **state) {
  (void)state;
  devicertl_fptr_assign(&map_p, &map_size, table, (void *)(uintptr_t)N);
  pthread_t t[8];
  for (intptr_t i = 0; i < 8; i++)
    pthread_create(&t[i], NULL, thread_main, (void *)i);
  /* Images come and go while the threads translate. */
  for (int i = 0; i < 50; i++) {
    devicertl_image_add((const void *)(uintptr_t)(0x9000 + i), 1,
                        EMU_CODE_BASE + EMU_CODE_STRIDE + 0x10000 * i,
                        0x1000, NULL, NULL);
    devicertl_image_remove((const void *)(uintptr_t)(0x9000 + i));
  }
  for (int i = 0; i < 8; i++) {
    void *bad;
    pthread_join(t[i], &bad);
    assert_int_equal((intptr_t)bad, 0);
  }
}

/* A stub placed in device 5's code range that calls FN(ARG): what device
 * code calling the runtime looks like to it. */
static void *make_stub(uintptr_t at, void *fn) {
  unsigned char *p = mmap((void *)at, 4096, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                          -1, 0);
  if (p != (void *)at)
    return NULL;
  unsigned char code[] = {0x48, 0x83, 0xEC, 0x08, /* sub $8,%rsp */
                          0x48, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, /* movabs */
                          0xFF, 0xD0,               /* call *%rax */
                          0x48, 0x83, 0xC4, 0x08,   /* add $8,%rsp */
                          0xC3};
  memcpy(code + 6, &fn, 8);
  memcpy(p, code, sizeof code);
  mprotect(p, 4096, PROT_READ | PROT_EXEC);
  return p;
}

static void test_by_caller_address(void **state) {
  (void)state;
  uintptr_t base = EMU_CODE_BASE + 5 * EMU_CODE_STRIDE;
  void *(*tr)(void *) =
      make_stub(base, (void *)__kmpc_target_translate_fptr);
  int (*devnum)(void) = make_stub(base + 4096,
                                  devicertl_lookup("omp_get_device_num"));
  int (*initial)(void) = make_stub(base + 8192,
                                   devicertl_lookup("omp_is_initial_device"));
  assert_non_null(tr);
  assert_non_null(devnum);
  assert_non_null(initial);
  /* No context on this thread: the caller's address decides. */
  assert_int_equal(devnum(), 5);
  assert_int_equal(initial(), 0);
  static __omp_offloading_fptr_map_ty *p5;
  static uint64_t n5;
  static __omp_offloading_fptr_map_ty t5[2] = {{0x100, 0x111}, {0x200, 0x222}};
  devicertl_image_add((const void *)0x6000, 5, base, 4096, &p5, &n5);
  assert_ptr_equal(tr((void *)0x100), (void *)0x100); /* no table yet */
  devicertl_fptr_assign(&p5, &n5, t5, (void *)2);
  assert_ptr_equal(tr((void *)0x100), (void *)0x111);
  assert_ptr_equal(tr((void *)0x200), (void *)0x222);
  assert_ptr_equal(tr((void *)0x150), (void *)0x150);
  /* The stub's image decides, not this thread's context. */
  struct emu_devctx c = {0, IMG, 0, 0, 0};
  emu_set_ctx(&c);
  assert_ptr_equal(tr((void *)0x100), (void *)0x111);
  emu_set_ctx(NULL);
  devicertl_image_remove((const void *)0x6000);
  assert_ptr_equal(tr((void *)0x100), (void *)0x100);
  munmap((void *)base, 3 * 4096);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lookup),
      cmocka_unit_test(test_queries_by_context),
      cmocka_unit_test(test_translate),
      cmocka_unit_test(test_translate_threads),
      cmocka_unit_test(test_by_caller_address),
  };
  return cmocka_run_group_tests_name("emu devicertl", tests, setup, NULL);
}
