/* Device memory and copies of the cuda plugin: allocation kinds,
 * synchronous copies and their checks, allocation failing, the pool of
 * small blocks, and device-to-device exchange with and without peer
 * access. */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <string.h>

static void c_alloc_kinds(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  log_clear();
  void *d = P.data_alloc(0, 100, NULL, TARGET_ALLOC_DEVICE);
  void *df = P.data_alloc(0, 64, &host_counter, TARGET_ALLOC_DEFAULT);
  void *h = P.data_alloc(0, 32, NULL, TARGET_ALLOC_HOST);
  void *s = P.data_alloc(0, 48, NULL, TARGET_ALLOC_SHARED);
  CHECK(in_fake_range(d) && in_fake_range(df) && in_fake_range(s));
  CHECK(h && !in_fake_range(h));
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=100 -> 0x00005c0000000000") == 1);
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=64 -> 0x00005c0000000100") == 1);
  CHECK(log_count("cuMemAllocHost_v2 dev=0 size=32") == 1);
  CHECK(log_count("cuMemAllocManaged dev=0 size=48 flags=1") == 1);
  CHECK(P.data_alloc(0, 8, NULL, 7) == NULL);
  CHECK(strstr(errtext(), "unknown allocation kind 7"));
  CHECK(P.data_alloc(0, 0, NULL, 0) == NULL);
  CHECK(log_count("cuMemAlloc") == 4);
  CHECK(P.data_delete(0, h) == 0);
  CHECK(log_count("cuMemFreeHost ptr=") == 1);
  CHECK(P.data_delete(0, d) == 0);
  CHECK(P.data_delete(0, s) == 0);
  CHECK(log_count("cuMemFree_v2 ptr=0x00005c0000000000 -> 0") == 1);
  CHECK(log_count("cuMemFree_v2") == 2);
  /* A second free of the same pointer is the driver's error, named. */
  CHECK(P.data_delete(0, d) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "cuda: error: cuMemFree failed on device 0 for device "
                          "allocation 0x00005c0000000000: CUDA_ERROR_INVALID_VALUE"));
}

static void c_copies(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  int src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, dst[8] = {0};
  void *d = P.data_alloc(0, sizeof src, NULL, 0);
  log_clear();
  CHECK(P.data_submit(0, d, src, sizeof src) == 0);
  CHECK(P.data_retrieve(0, dst, d, sizeof dst) == 0);
  CHECK(memcmp(src, dst, sizeof src) == 0);
  char want[160];
  snprintf(want, sizeof want, "cuMemcpyHtoD_v2 dev=0 dst=0x%016lx src=0x%016lx "
           "size=32", (unsigned long)(uintptr_t)d, (unsigned long)(uintptr_t)src);
  CHECK(log_count(want) == 1);
  CHECK(log_count("cuMemcpyDtoH_v2 dev=0") == 1);
  CHECK(P.data_submit(0, d, src, 0) == 0); /* nothing to do: no call */
  CHECK(log_count("cuMemcpy") == 2);
  /* A host pointer where a device pointer belongs. */
  CHECK(P.data_retrieve(0, dst, src, 8) == OFFLOAD_FAIL);
  snprintf(want, sizeof want, "cuMemcpyDtoH failed on device 0 for device "
           "[0x%016lx..0x%016lx) to host", (unsigned long)(uintptr_t)src,
           (unsigned long)(uintptr_t)src + 8);
  CHECK(strstr(errtext(), want));
  CHECK(strstr(errtext(), "CUDA_ERROR_INVALID_VALUE (1): invalid argument"));
  /* Past the end of the allocation. */
  CHECK(P.data_submit(0, (char *)d + 16, src, 32) == OFFLOAD_FAIL);
}

static void c_alloc_fail(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  CHECK(P.data_alloc(0, 16, NULL, 0) != NULL);
  CHECK(P.data_alloc(0, 16, &host_counter, 0) == NULL);
  char want[200];
  snprintf(want, sizeof want, "cuda: error: cuMemAlloc failed on device 0 for 16 "
           "bytes (device, a pool block of 256) for host 0x%016lx: "
           "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory",
           (unsigned long)(uintptr_t)&host_counter);
  CHECK(strstr(errtext(), want));
  CHECK(P.data_alloc(0, 16, NULL, TARGET_ALLOC_HOST) == NULL);
  CHECK(strstr(errtext(), "cuMemAllocHost failed on device 0"));
  CHECK(P.data_alloc(0, 16, NULL, TARGET_ALLOC_SHARED) == NULL);
  CHECK(strstr(errtext(), "cuMemAllocManaged failed on device 0"));
}

static void c_exchange(void) {
  load(1); /* 2 devices */
  CHECK(P.init_device(0) == 0 && P.init_device(1) == 0);
  CHECK(P.is_exchangable(0, 1) == 1);
  CHECK(P.is_exchangable(0, 0) == 1);
  int v = 1234, back = 0;
  void *a = P.data_alloc(0, sizeof v, NULL, 0);
  void *b = P.data_alloc(1, sizeof v, NULL, 0);
  void *c = P.data_alloc(1, sizeof v, NULL, 0);
  CHECK(P.data_submit(0, a, &v, sizeof v) == 0);
  CHECK(P.exchange(0, a, 1, b, sizeof v) == 0);
  CHECK(P.data_retrieve(1, &back, b, sizeof back) == 0);
  CHECK(back == 1234);
  CHECK(log_count("cuMemcpyPeer dev=1") == 1);
  CHECK(log_count("cuCtxEnablePeerAccess dev=1 peer=0") == 1);
  CHECK(P.exchange(0, a, 1, c, sizeof v) == 0);
  CHECK(log_count("cuCtxEnablePeerAccess") == 1); /* already enabled: ok */
  CHECK(P.exchange(1, b, 1, c, sizeof v) == 0);
  CHECK(log_count("cuMemcpyDtoD_v2 dev=1") == 1);
}

static void c_exchange_nopeer(void) {
  load(1); /* 2 devices, FAKE_CUDA_NO_PEER */
  CHECK(P.init_device(0) == 0 && P.init_device(1) == 0);
  CHECK(P.is_exchangable(0, 1) == 0);
  void *a = P.data_alloc(0, 8, NULL, 0);
  void *b = P.data_alloc(1, 8, NULL, 0);
  CHECK(P.exchange(0, a, 1, b, 8) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "data_exchange: device 1 cannot access device 0"));
  CHECK(log_count("cuMemcpyPeer") == 0);
}

/* The pool: a freed small block is the next allocation of its size class,
 * with no driver call either way; larger allocations are the driver's. */
static void c_pool_reuse(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  log_clear();
  void *a = P.data_alloc(0, 4096, NULL, TARGET_ALLOC_DEFAULT);
  CHECK(a && P.data_delete(0, a) == 0);
  calls_reset();
  void *b = P.data_alloc(0, 3000, NULL, TARGET_ALLOC_DEVICE);
  CHECK(b == a); /* 3000 bytes: the same 4 KiB class */
  CHECK(P.data_delete(0, b) == 0);
  CHECK(calls_total() == 0);
  /* Two live blocks of one class are two blocks. */
  void *c = P.data_alloc(0, 100, NULL, 0), *e = P.data_alloc(0, 256, NULL, 0);
  CHECK(c && e && c != e);
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=256 ") == 2);
  /* Above the threshold (8 KiB): the driver's allocation, freed at once. */
  void *big = P.data_alloc(0, 9000, NULL, 0);
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=9000 ") == 1);
  CHECK(P.data_delete(0, big) == 0);
  char want[80];
  snprintf(want, sizeof want, "cuMemFree_v2 ptr=0x%016lx -> 0",
           (unsigned long)(uintptr_t)big);
  CHECK(log_count(want) == 1);
  CHECK(log_count("cuMemFree_v2") == 1);
  /* Copies to a pool block are checked against the block. */
  char buf[100] = {1};
  CHECK(P.data_submit(0, c, buf, sizeof buf) == 0);
}

static void c_pool_off(void) {
  load(1); /* LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD=0 */
  CHECK(P.init_device(0) == 0);
  for (int i = 0; i < 2; i++) {
    void *a = P.data_alloc(0, 4096, NULL, 0);
    CHECK(a && P.data_delete(0, a) == 0);
  }
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=4096 ") == 2);
  CHECK(log_count("cuMemFree_v2") == 2);
}

/* At most OMPEMU_CUDA_POOL_MAX bytes stay idle: more go to the driver. */
static void c_pool_bound(void) {
  load(1); /* OMPEMU_CUDA_POOL_MAX=8K */
  CHECK(P.init_device(0) == 0);
  void *a[4];
  for (int i = 0; i < 4; i++)
    CHECK((a[i] = P.data_alloc(0, 4096, NULL, 0)) != NULL);
  for (int i = 0; i < 4; i++)
    CHECK(P.data_delete(0, a[i]) == 0);
  CHECK(log_count("cuMemFree_v2") == 2);
  char want[80];
  snprintf(want, sizeof want, "cuMemFree_v2 ptr=0x%016lx -> 0",
           (unsigned long)(uintptr_t)a[3]);
  CHECK(log_count(want) == 1);
  calls_reset();
  CHECK(P.data_alloc(0, 4096, NULL, 0) == a[1]); /* idle, newest first */
  CHECK(P.data_alloc(0, 4096, NULL, 0) == a[0]);
  CHECK(calls_of("cuMemAlloc_v2") == 0);
}

/* Out of device memory: the idle blocks are freed and the allocation
 * tried once more. */
static void c_pool_out_of_memory(void) {
  load(1); /* FAKE_CUDA_MEM=64K */
  CHECK(P.init_device(0) == 0);
  void *a[8];
  for (int i = 0; i < 8; i++)
    CHECK((a[i] = P.data_alloc(0, 8192, NULL, 0)) != NULL);
  for (int i = 0; i < 8; i++)
    CHECK(P.data_delete(0, a[i]) == 0);
  CHECK(log_count("cuMemFree_v2") == 0);
  void *big = P.data_alloc(0, 32768, NULL, 0);
  CHECK(big != NULL);
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=32768 -> 0x0000000000000000 (2)") == 1);
  CHECK(log_count("cuMemFree_v2") == 8);
  CHECK(log_count("cuMemAlloc_v2 dev=0 size=32768 -> 0x00005c") == 1);
  CHECK(!strstr(errtext(), "error"));
}

/* Without the pool (LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD=0), each
 * allocation is the driver's own, of the size asked: the double then
 * catches a copy past an allocation's end. */
CASE(alloc_kinds, "LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD", "0", )
CASE(copies, "LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD", "0", )
CASE(pool_reuse)
CASE(pool_off, "LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD", "0", )
CASE(pool_bound, "OMPEMU_CUDA_POOL_MAX", "8K", )
CASE(pool_out_of_memory, "FAKE_CUDA_MEM", "65536", )
CASE(alloc_fail, "FAKE_CUDA_ALLOC_FAIL_AFTER", "1", )
CASE(exchange, "FAKE_CUDA_NUM_DEVICES", "2", )
CASE(exchange_nopeer, "FAKE_CUDA_NUM_DEVICES", "2", "FAKE_CUDA_NO_PEER", "1", )

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_alloc_kinds),
      cmocka_unit_test(t_copies),
      cmocka_unit_test(t_alloc_fail),
      cmocka_unit_test(t_pool_reuse),
      cmocka_unit_test(t_pool_off),
      cmocka_unit_test(t_pool_bound),
      cmocka_unit_test(t_pool_out_of_memory),
      cmocka_unit_test(t_exchange),
      cmocka_unit_test(t_exchange_nopeer),
  };
  return cmocka_run_group_tests_name("cuda plugin: memory", tests, NULL, NULL);
}
