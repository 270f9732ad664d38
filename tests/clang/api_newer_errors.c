// Misuse of the API functions newer omp.h files declare: each error is
// reported, naming the function called, and returns what OpenMP says.
// CFLAGS:
// SKIP-MODE-llvmrt: LLVM 14's runtime exports none of these functions
// CHECK-ERRORS: errors provoked on purpose
// EXPECT-STDERR: omp_get_mapped_ptr: called with a NULL pointer
// EXPECT-STDERR: omp_get_mapped_ptr: device number 7 is neither a device
// EXPECT-STDERR: omp_target_memset: device number -5 is neither a device
// EXPECT-STDERR: omp_target_memset: 16 bytes at 0xfffffffffffffff8 run past the end of the address space
// EXPECT-STDERR: ompemu: error: omp_target_memcpy_async at api_newer_errors
// EXPECT-STDERR: : depobj_count -1 with depobj_list 0x
// EXPECT-STDERR: Call to omp_target_memcpy_async with invalid arguments
// EXPECT-STDERR: llvm_omp_target_free_host at api_newer_errors
// EXPECT-STDERR: llvm_omp_target_lock_mem: invalid range of 0 bytes
// EXPECT-STDERR: omp_get_uid_from_device: device number 9 is neither a device
#include "check.h"
#include "newer_api.h"
#include <stdint.h>

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int a[4] = {0};
  CHECK(omp_get_mapped_ptr(NULL, dev) == NULL, "NULL pointer");
  CHECK(omp_get_mapped_ptr(a, 7) == NULL, "bad device");
  CHECK(omp_target_memset(a, 0, sizeof a, -5) == a, "memset returns ptr");
  void *top = (void *)(uintptr_t)0xfffffffffffffff8ull;
  CHECK(omp_target_memset(top, 0, 16, dev) == top, "memset overflow");
  CHECK(omp_target_memcpy_async(a, a, sizeof a, 0, 0, host, host, -1, NULL) != 0,
        "negative depobj count");
  CHECK(omp_target_memcpy_async(NULL, a, sizeof a, 0, 0, dev, host, 0, NULL) != 0,
        "NULL destination");
  int *d = omp_target_alloc(sizeof a, dev);
  /* not an allocation (LLVM's x86_64 plugin would pass it to free()) */
  if (!tc_device() || strcmp(tc_device(), "x86") != 0)
    llvm_omp_target_free_host(d + 1, dev);
  else
    fprintf(stderr, "llvm_omp_target_free_host at "
                    "api_newer_errors (not tried on x86)\n");
  omp_target_free(d, dev);
  CHECK(llvm_omp_target_lock_mem(a, 0, dev) == NULL, "lock of 0 bytes");
  CHECK(omp_get_uid_from_device(9) == NULL, "uid of a bad device");
  return tc_done();
}
