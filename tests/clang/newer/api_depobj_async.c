// omp_target_memcpy_async and omp_target_memset_async with depend objects
// (OpenMP 5.1; LLVM's runtime exports them from 19 on): each waits for
// the task its depend object names.  Also llvm_omp_target_lock_mem /
// unlock_mem on host memory and ompx_dump_mapping_tables (19).
// MIN-CLANG: 19
// EXPECT-STDOUT: omptarget device 0 info: OpenMP Host-Device pointer mappings after block at libomptarget:0:0:
#include "check.h"
#include <omp.h>
#include <unistd.h>

void *llvm_omp_target_lock_mem(void *, size_t, int);
void llvm_omp_target_unlock_mem(void *, int);

#define N 16

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int buf[N] = {0}, back[N] = {0};
  int *d = omp_target_alloc(sizeof buf, dev);
  CHECK(d != NULL, "omp_target_alloc");
  if (!d)
    return tc_done();
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
    int rc = omp_target_memcpy_async(d, buf, sizeof buf, 0, 0, dev, host, 1, &obj);
    CHECK(rc == 0, "omp_target_memcpy_async returned %d", rc);
#pragma omp taskwait
#pragma omp depobj(obj) destroy
  }
  omp_target_memcpy(back, d, sizeof back, 0, 0, host, dev);
  CHECK(back[0] == 100 && back[N - 1] == 100 + N - 1,
        "the copy did not wait for the task: %d .. %d", back[0], back[N - 1]);

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
  CHECK(back[3] == 0 && back[4] == 0x7f7f7f7f && back[8] == 0,
        "the fill did not wait for the task: %#x %#x %#x", back[3], back[4], back[8]);
  omp_target_free(d, dev);

  CHECK(llvm_omp_target_lock_mem(buf, sizeof buf, dev) == buf, "lock_mem");
  llvm_omp_target_unlock_mem(buf, dev);

#pragma omp target enter data map(to : buf)
  ompx_dump_mapping_tables();
#pragma omp target exit data map(delete : buf)
  return tc_done();
}
