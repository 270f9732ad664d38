/* Test image whose omp_offloading_entries section sits at an odd address,
 * as clang 14 (section alignment 1) can place it. */
#include <stddef.h>
#include <stdint.h>

char odd_pad = 1;
int kernel_one(void) { return 1; }

struct __attribute__((packed)) entry {
  void *addr;
  char *name;
  size_t size;
  int32_t flags;
  int32_t reserved;
};
__attribute__((section("omp_offloading_entries"), used)) struct entry
    odd_entry __attribute__((aligned(1))) = {(void *)kernel_one, "kernel_one",
                                             0, 0, 0};
