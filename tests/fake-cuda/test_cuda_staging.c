/* Large copies staged through pinned memory in the cuda plugin, and the
 * release of everything the plugin holds when it is unloaded.  The double
 * runs queued copies only at a synchronize, reading the source then: a
 * plugin that reused a staging buffer too early, or copied a retrieve's
 * bytes to the host before its transfer ran, gets wrong data here. */
#define _GNU_SOURCE
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#define MIB (1 << 20)

/* N bytes of a pattern that differs for each SEED. */
static unsigned char *pattern(size_t n, unsigned seed) {
  unsigned char *p = malloc(n);
  CHECK(p != NULL);
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(i * 131 + seed + i / 4096);
  return p;
}

/* A synchronous copy of 1 MiB + 123 bytes in 64 KiB chunks through two
 * pinned buffers, both ways; a second copy reuses them. */
static void c_stage_sync(void) {
  load(1); /* OMPEMU_CUDA_STAGING_CHUNK=64K */
  CHECK(P.init_device(0) == 0);
  size_t n = MIB + 123;
  unsigned char *src = pattern(n, 1), *back = calloc(1, n);
  void *d = P.data_alloc(0, (int64_t)n, NULL, 0);
  CHECK(d && back);
  log_clear();
  CHECK(P.data_submit(0, d, src, (int64_t)n) == 0);
  CHECK(log_count("cuMemHostAlloc dev=0 size=65536 flags=0") == 2);
  CHECK(log_count("cuMemcpyHtoDAsync_v2") == 17); /* 16 x 64 KiB + 123 */
  CHECK(log_count("size=123 stream=") == 1);
  CHECK(log_count("cuMemcpyHtoD_v2") == 0);
  CHECK(P.data_retrieve(0, back, d, (int64_t)n) == 0);
  CHECK(memcmp(src, back, n) == 0);
  CHECK(log_count("cuMemcpyDtoHAsync_v2") == 17);
  CHECK(log_count("cuMemcpyDtoH_v2") == 0);
  /* Again, other bytes: the same pinned buffers. */
  unsigned char *src2 = pattern(n, 2);
  CHECK(P.data_submit(0, d, src2, (int64_t)n) == 0);
  CHECK(P.data_retrieve(0, back, d, (int64_t)n) == 0);
  CHECK(memcmp(src2, back, n) == 0);
  CHECK(log_count("cuMemHostAlloc") == 2);
  free(src);
  free(src2);
  free(back);
}

/* Below OMPEMU_CUDA_STAGING_THRESHOLD (1 MiB): the driver's own copy. */
static void c_stage_small(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  size_t n = MIB / 2;
  unsigned char *src = pattern(n, 3);
  void *d = P.data_alloc(0, (int64_t)n, NULL, 0);
  CHECK(P.data_submit(0, d, src, (int64_t)n) == 0);
  CHECK(log_count("cuMemcpyHtoD_v2") == 1);
  CHECK(log_count("cuMemHostAlloc") == 0);
  free(src);
}

/* Async: a submit has read the host buffer when it returns; a retrieve's
 * bytes reach the host at the synchronize, not before. */
static void c_stage_async(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  size_t n = 2 * MIB;
  unsigned char *src = pattern(n, 4), *want = pattern(n, 4);
  unsigned char *back = malloc(n);
  void *d = P.data_alloc(0, (int64_t)n, NULL, 0);
  CHECK(d && back);
  __tgt_async_info ai = {NULL};
  CHECK(P.submit_async(0, d, src, (int64_t)n, &ai) == 0);
  memset(src, 0x5a, n); /* the program's buffer, after the call */
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(P.data_retrieve(0, back, d, (int64_t)n) == 0);
  CHECK(memcmp(back, want, n) == 0);
  CHECK(log_count("cuMemHostAlloc dev=0 size=2097152") == 1);
  memset(back, 0xee, n);
  CHECK(P.retrieve_async(0, back, d, (int64_t)n, &ai) == 0);
  CHECK(back[0] == 0xee && back[n - 1] == 0xee);
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(memcmp(back, want, n) == 0);
  /* The submit's pinned buffer came back at its synchronize, and served
   * the retrieve (the synchronous retrieve used the stager's buffers). */
  CHECK(log_count("cuMemHostAlloc dev=0 size=2097152") == 1);
  free(src);
  free(want);
  free(back);
}

/* A kernel faults before a staged retrieve: the synchronize fails and the
 * host buffer is left as it was. */
static void c_stage_async_fault(void) {
  load(1); /* FAKE_CUDA_KERNEL_FAULT=k_store */
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  size_t n = 2 * MIB;
  unsigned char *back = malloc(n);
  void *d = P.data_alloc(0, (int64_t)n, NULL, 0);
  CHECK(d && back);
  memset(back, 0x11, n);
  __tgt_async_info ai = {NULL};
  void *args[2] = {d, (void *)(intptr_t)9};
  ptrdiff_t offs[2] = {0, 0};
  CHECK(P.run_team_async(0, e[E_STORE].addr, args, offs, 2, 1, 1, 0, &ai) == 0);
  CHECK(P.retrieve_async(0, back, d, (int64_t)n, &ai) == 0);
  CHECK(P.synchronize(0, &ai) == OFFLOAD_FAIL);
  CHECK(strstr(errtext(), "CUDA_ERROR_ILLEGAL_ADDRESS"));
  CHECK(back[0] == 0x11 && back[n - 1] == 0x11);
  free(back);
}

/* Staging off, or no room for an async copy's buffer: unstaged copies. */
static void c_stage_off(void) {
  load(1); /* OMPEMU_CUDA_STAGING_THRESHOLD=0 */
  CHECK(P.init_device(0) == 0);
  size_t n = 2 * MIB;
  unsigned char *src = pattern(n, 5);
  void *d = P.data_alloc(0, (int64_t)n, NULL, 0);
  CHECK(P.data_submit(0, d, src, (int64_t)n) == 0);
  CHECK(log_count("cuMemcpyHtoD_v2") == 1);
  CHECK(log_count("cuMemHostAlloc") == 0);
  free(src);
}

static void c_stage_pinned_max(void) {
  load(1); /* OMPEMU_CUDA_STAGING_MAX=1M, OMPEMU_TRACE=2 */
  CHECK(P.init_device(0) == 0);
  size_t n = 2 * MIB;
  unsigned char *src = pattern(n, 6), *back = malloc(n);
  void *d = P.data_alloc(0, (int64_t)n, NULL, 0);
  __tgt_async_info ai = {NULL};
  CHECK(P.submit_async(0, d, src, (int64_t)n, &ai) == 0);
  CHECK(P.synchronize(0, &ai) == 0);
  CHECK(log_count("cuMemcpyHtoDAsync_v2") == 1);
  CHECK(log_count("cuMemHostAlloc") == 0);
  CHECK(strstr(errtext(), "cuda: device 0: 1048576 bytes of pinned buffers in "
                          "use: a copy of 2097152 bytes is not staged"));
  CHECK(P.data_retrieve(0, back, d, (int64_t)n) == 0);
  CHECK(memcmp(src, back, n) == 0);
  free(src);
  free(back);
}

/* The driver refuses pinned memory: a note, and the copies still work. */
static void c_stage_no_pinned(void) {
  load(1); /* FAKE_CUDA_ALLOC_FAIL_AFTER=1 */
  CHECK(P.init_device(0) == 0);
  size_t n = 2 * MIB;
  unsigned char *src = pattern(n, 7), *back = malloc(n);
  void *d = P.data_alloc(0, (int64_t)n, NULL, 0);
  CHECK(d != NULL);
  CHECK(P.data_submit(0, d, src, (int64_t)n) == 0);
  CHECK(P.data_retrieve(0, back, d, (int64_t)n) == 0);
  CHECK(memcmp(src, back, n) == 0);
  CHECK(strstr(errtext(), "cuda: device 0: no pinned staging buffers "
                          "(CUDA_ERROR_OUT_OF_MEMORY): large copies are not "
                          "staged"));
  CHECK(!strstr(errtext(), "error:"));
  free(src);
  free(back);
}

/* Unloading the plugin gives everything back: pool blocks, pinned
 * buffers, streams, events, modules, the fptr table, HOST allocations,
 * the primary context. */
static void c_deinit_releases(void) {
  load(1);
  CHECK(P.init_device(0) == 0);
  __tgt_offload_entry *e = load_std()->EntriesBegin;
  size_t n = 2 * MIB;
  unsigned char *src = pattern(n, 8);
  void *big = P.data_alloc(0, (int64_t)n, NULL, 0);
  void *small = P.data_alloc(0, 64, NULL, 0);
  void *freed = P.data_alloc(0, 64, NULL, 0);
  void *host = P.data_alloc(0, 64, NULL, TARGET_ALLOC_HOST);
  CHECK(big && small && freed && host && P.data_delete(0, freed) == 0);
  CHECK(P.data_submit(0, big, src, (int64_t)n) == 0);
  __tgt_async_info ai = {NULL};
  CHECK(P.submit_async(0, big, src, (int64_t)n, &ai) == 0);
  void *args[2] = {small, (void *)(intptr_t)3};
  ptrdiff_t offs[2] = {0, 0};
  CHECK(P.run_team_async(0, e[E_STORE].addr, args, offs, 2, 1, 1, 0, &ai) == 0);
  CHECK(P.synchronize(0, &ai) == 0);
  __omp_offloading_fptr_map_ty row = {1, 2};
  CHECK(P.set_fptr_map(0, 1, &row) == 0);
  /* The program frees what it allocated beyond the pool's threshold
   * (that memory is the driver's, the plugin keeps no record of it); the
   * pool's blocks, even one the program never freed, are the plugin's. */
  CHECK(P.data_delete(0, big) == 0);
  CHECK(live_device_allocs() > 0 && live_host_allocs() > 0);
  unload_plugin();
  CHECK(live_device_allocs() == 0);
  CHECK(live_host_allocs() == 0);
  CHECK(log_count("cuModuleUnload") == 1);
  CHECK(log_count("cuStreamCreate") == log_count("cuStreamDestroy_v2"));
  CHECK(log_count("cuEventCreate") == log_count("cuEventDestroy_v2"));
  CHECK(log_count("cuDevicePrimaryCtxRelease dev=0") == 1);
  CHECK(!strstr(errtext(), "error"));
  free(src);
}

CASE(stage_sync, "OMPEMU_CUDA_STAGING_CHUNK", "64K", )
CASE(stage_small)
CASE(stage_async)
CASE(stage_async_fault, "FAKE_CUDA_KERNEL_FAULT", "k_store", )
CASE(stage_off, "OMPEMU_CUDA_STAGING_THRESHOLD", "0", )
CASE(stage_pinned_max, "OMPEMU_CUDA_STAGING_MAX", "1M", "OMPEMU_TRACE", "2", )
CASE(stage_no_pinned, "FAKE_CUDA_ALLOC_FAIL_AFTER", "1", )
CASE(deinit_releases)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(t_stage_sync),        cmocka_unit_test(t_stage_small),
      cmocka_unit_test(t_stage_async),       cmocka_unit_test(t_stage_async_fault),
      cmocka_unit_test(t_stage_off),         cmocka_unit_test(t_stage_pinned_max),
      cmocka_unit_test(t_stage_no_pinned),   cmocka_unit_test(t_deinit_releases),
  };
  return cmocka_run_group_tests_name("cuda plugin: staging and release", tests,
                                     NULL, NULL);
}
