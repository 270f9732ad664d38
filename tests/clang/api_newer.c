// The API functions newer omp.h files declare, called from a clang-14
// program (through tests/clang/newer_api.h):
// omp_get_mapped_ptr, omp_target_memset[_async], omp_target_memcpy_async
// and omp_target_memcpy_rect_async waiting for their depend objects,
// llvm_omp_target_free_*, lock/unlock, the device unique ids,
// omp_target_is_accessible and ompx_dump_mapping_tables.
// SKIP-MODE-llvmrt: LLVM 14's runtime exports none of these functions
// EXPECT-STDOUT: omptarget device 0 info: OpenMP Host-Device pointer mappings after block at libomptarget:0:0:
// EXPECT-STDOUT: DynRefCount HoldRefCount Declaration
// EXPECT-STDOUT: 64       1           0            unknown at unknown:0:0
#include "check.h"
#include "newer_api.h"
#include <stdint.h>
#include <unistd.h>

#define N 16

/* An async copy waits for the task its depend object names: the task
 * writes BUF late; the copy must see what it wrote. */
static void async_waits_for_task(int dev, int host) {
  int buf[N] = {0}, back[N] = {0};
  int *d = omp_target_alloc(sizeof buf, dev);
  CHECK(d != NULL, "omp_target_alloc");
  if (!d)
    return;
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    omp_depend_t obj;
#pragma omp task depend(out : buf)
    {
      usleep(300000);
      for (int i = 0; i < N; i++)
        buf[i] = 100 + i;
    }
#pragma omp depobj(obj) depend(in : buf)
    int rc = omp_target_memcpy_async(d, buf, sizeof buf, 0, 0, dev, host, 1,
                                     &obj);
    CHECK(rc == 0, "omp_target_memcpy_async returned %d", rc);
#pragma omp taskwait
#pragma omp depobj(obj) destroy
  }
  omp_target_memcpy(back, d, sizeof back, 0, 0, host, dev);
  CHECK(back[0] == 100 && back[N - 1] == 100 + N - 1,
        "async copy did not wait for the task: %d .. %d", back[0],
        back[N - 1]);

  /* the same for a fill and a rectangular copy */
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    omp_depend_t obj;
#pragma omp task depend(out : d)
    {
      usleep(200000);
      omp_target_memset(d, 0, sizeof buf, dev);
    }
#pragma omp depobj(obj) depend(inout : d)
    omp_target_memset_async(d + 4, 0x7f, 4 * sizeof(int), dev, 1, &obj);
#pragma omp taskwait
#pragma omp depobj(obj) destroy
  }
  omp_target_memcpy(back, d, sizeof back, 0, 0, host, dev);
  CHECK(back[3] == 0 && back[4] == 0x7f7f7f7f && back[7] == 0x7f7f7f7f &&
            back[8] == 0,
        "async fill ran before the task: %#x %#x %#x %#x", back[3], back[4],
        back[7], back[8]);

  int m[4][4], r[4][4];
  for (int i = 0; i < 16; i++)
    m[i / 4][i % 4] = i;
  size_t vol[2] = {2, 3}, off0[2] = {0, 0}, src_off[2] = {1, 1}, dims[2] = {4, 4};
  memset(r, 0, sizeof r);
  CHECK(omp_target_memcpy_rect_async(d, m, sizeof(int), 2, vol, off0, src_off,
                                     dims, dims, dev, host, 0, NULL) == 0,
        "rect async");
  omp_target_memcpy(r, d, sizeof r, 0, 0, host, dev);
  CHECK(r[0][0] == 5 && r[0][2] == 7 && r[1][0] == 9 && r[1][2] == 11,
        "rect async copied %d %d %d %d", r[0][0], r[0][2], r[1][0], r[1][2]);
  CHECK(omp_target_memcpy_rect_async(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL,
                                     NULL, dev, host, 0, NULL) > 2,
        "rect async: dimensions supported");
  omp_target_free(d, dev);
}

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();

  /* omp_get_mapped_ptr */
  int a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  CHECK(omp_get_mapped_ptr(a, dev) == NULL, "mapped before enter data");
  CHECK(omp_get_mapped_ptr(a, host) == a, "host device gives the pointer");
#pragma omp target enter data map(to : a)
  char *dp = omp_get_mapped_ptr(a, dev);
  uintptr_t seen = 0;
#pragma omp target map(from : seen)
  seen = (uintptr_t)a;
  CHECK(dp && (uintptr_t)dp == seen, "mapped %p, device saw %#lx", (void *)dp,
        (unsigned long)seen);
  CHECK(omp_get_mapped_ptr(&a[3], dev) == dp + 3 * sizeof(int), "interior");
  ompx_dump_mapping_tables();

  /* omp_target_memset on the mapped copy, seen by the device */
  CHECK(omp_target_memset(dp + 2 * sizeof(int), 0, 4 * sizeof(int), dev) ==
            dp + 2 * sizeof(int), "memset returns its pointer");
#pragma omp target exit data map(from : a)
  CHECK(a[1] == 1 && a[2] == 0 && a[5] == 0 && a[6] == 6, "memset: %d %d %d %d",
        a[1], a[2], a[5], a[6]);
  CHECK(omp_get_mapped_ptr(a, dev) == NULL, "mapped after exit data");
  CHECK(omp_target_memset(a, 9, 0, dev) == a, "memset of 0 bytes");
  int h[4];
  CHECK(omp_target_memset(h, 1, sizeof h, host) == h && h[3] == 0x01010101,
        "memset on the host");

  /* a fill larger than one chunk */
  size_t big = 200 * 1024 + 3;
  unsigned char *bd = omp_target_alloc(big, dev), *bh = malloc(big);
  CHECK(bd && bh, "alloc");
  if (bd && bh) {
    omp_target_memset(bd, 0xab, big, dev);
    omp_target_memcpy(bh, bd, big, 0, 0, host, dev);
    size_t bad = 0;
    for (size_t i = 0; i < big; i++)
      bad += bh[i] != 0xab;
    CHECK(bad == 0, "big fill: %zu bytes wrong", bad);
    omp_target_free(bd, dev);
  }
  free(bh);

  async_waits_for_task(dev, host);

  /* llvm_omp_target_alloc_* with their free functions */
  void *p1 = llvm_omp_target_alloc_device(64, dev);
  void *p2 = llvm_omp_target_alloc_host(64, dev);
  void *p3 = llvm_omp_target_alloc_shared(64, dev);
  CHECK(p1 && p2 && p3, "llvm_omp_target_alloc_*: %p %p %p", p1, p2, p3);
  llvm_omp_target_free_device(p1, dev);
  llvm_omp_target_free_host(p2, dev);
  llvm_omp_target_free_shared(p3, dev);

  /* lock/unlock: the emu device reaches host memory in place */
  CHECK(llvm_omp_target_lock_mem(h, sizeof h, dev) == h, "lock_mem");
  llvm_omp_target_unlock_mem(h, dev);

  CHECK(omp_get_device_num() == host, "omp_get_device_num on the host: %d",
        omp_get_device_num());
  const char *uid = omp_get_uid_from_device(dev);
  CHECK(uid && omp_get_device_from_uid(uid) == dev, "uid %s", uid ? uid : "");
  CHECK(omp_get_device_from_uid(omp_get_uid_from_device(host)) == host,
        "host uid");
  CHECK(omp_get_device_from_uid("no such device") == -2, "unknown uid");
  CHECK(omp_target_is_accessible(h, sizeof h, host) == 1, "host accessible");
  CHECK(omp_target_is_accessible(h, sizeof h, dev) == 0,
        "host memory accessible to a discrete device");
  return tc_done();
}
