/* `make installcheck`'s clang-22 program (tests/compilers/local.mk): built
 * with the installed `pkg-config --libs ompemu` and run by the installed
 * ompemu-run.  Device memory and data mapping on the emu device, whose
 * data range starts at 0x2000_0000_0000; with -DWITH_KERNEL (the installed
 * runtime exports clang 16+'s launch entry point) also a kernel.  No
 * <omp.h>: LLVM 22's is not installed on Debian 12 without libomp-22-dev. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void *omp_target_alloc(size_t, int);
void omp_target_free(void *, int);
int omp_target_memcpy(void *, const void *, size_t, size_t, size_t, int, int);
int omp_get_default_device(void);
int omp_get_initial_device(void);
int omp_get_num_devices(void);

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  int fails = 0;
  if (omp_get_num_devices() < 1) {
    printf("no device\n");
    return 1;
  }
  int *d = omp_target_alloc(64 * sizeof(int), dev);
  if ((uintptr_t)d < 0x550000000000UL || (uintptr_t)d >= 0x554000000000UL) {
    printf("device memory at %p, not in ompemu's data range\n", (void *)d);
    fails++;
  }
  int a[64], b[64];
  for (int i = 0; i < 64; i++) a[i] = i * 3;
  memset(b, 0, sizeof b);
  omp_target_memcpy(d, a, sizeof a, 0, 0, dev, host);
  omp_target_memcpy(b, d, sizeof b, 0, 0, host, dev);
  if (memcmp(a, b, sizeof a) != 0) {
    printf("round trip through device memory lost data\n");
    fails++;
  }
  omp_target_free(d, dev);
  int x[16];
  for (int i = 0; i < 16; i++) x[i] = i;
#pragma omp target enter data map(to: x)
#ifdef WITH_KERNEL
#pragma omp target
  for (int i = 0; i < 16; i++) x[i] *= 2;
#endif
#pragma omp target exit data map(from: x)
#ifdef WITH_KERNEL
  if (x[15] != 30) {
    printf("kernel result x[15] = %d\n", x[15]);
    fails++;
  }
#endif
  if (fails)
    return 1;
  printf("installcheck: ok\n");
  return 0;
}
