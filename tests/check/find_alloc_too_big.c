// omp_target_alloc of more than the device's memory: every such request,
// SIZE_MAX included, gets NULL and the same message, which names the
// setting that raises the limit: a warning (a program may handle NULL).
// EXPECT-STDERR: emu: warning: device 0: out of device memory: request of 9223372036854775807 bytes, 0 of 1073741824 in use; OMPEMU_DEVICE_MEMORY sets the capacity (now 1G, at most 16G)
// EXPECT-STDERR: emu: warning: device 0: out of device memory: request of 1099511627776 bytes, 0 of 1073741824 in use; OMPEMU_DEVICE_MEMORY sets the capacity (now 1G, at most 16G)
// EXPECT-STDOUT: both NULL
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  void *a = omp_target_alloc(SIZE_MAX, dev);
  void *b = omp_target_alloc((size_t)1 << 40, dev);
  printf("%s\n", !a && !b ? "both NULL" : "an allocation succeeded");
  return !a && !b ? 0 : 1;
}
