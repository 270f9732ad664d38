// Device addresses: omp_target_alloc pointers, mapped data and the device
// address of a declare target global.  On the emu device they lie in the
// documented ranges (data 0x550000000000 + dev * 0x000400000000, code
// 0x554000000000 + dev * 0x000020000000, src/plugins/emu/arena.h), never equal
// a host address, and the printed device addresses are the same in every
// run.
// RUN-ENV: OMPEMU_NUM_DEVICES=2
// RUN-TWICE-SAME-STDOUT
#include "check.h"
#include <omp.h>
#include <stdint.h>

#pragma omp declare target
int gvar = 3;
double garr[16];
#pragma omp end declare target

#define DATA_BASE 0x550000000000ULL
#define DATA_STRIDE 0x000400000000ULL
#define CODE_BASE 0x554000000000ULL
#define CODE_STRIDE 0x000020000000ULL

static int in_range(uintptr_t p, unsigned long long base, int dev) {
  unsigned long long stride = base == DATA_BASE ? DATA_STRIDE : CODE_STRIDE;
  return p >= base + dev * stride && p < base + (dev + 1) * stride;
}

int main(void) {
  int emu = tc_device() && strcmp(tc_device(), "emu") == 0;
  int ndev = omp_get_num_devices() < 2 ? omp_get_num_devices() : 2;
  int *heap = malloc(64);
  int local[4] = {0};
  for (int d = 0; d < ndev; d++) {
    void *a1 = omp_target_alloc(1000, d);
    void *a2 = omp_target_alloc(64, d);
    uintptr_t g = 0, ga = 0, mapped = 0;
#pragma omp target device(d) map(from: g, ga)
    {
      g = (uintptr_t)&gvar;
      ga = (uintptr_t)&garr[0];
    }
    void *lp = local;
#pragma omp target data device(d) map(tofrom: local) use_device_ptr(lp)
    mapped = (uintptr_t)lp;
    printf("dev %d: alloc %#lx %#lx, mapped %#lx, &gvar %#lx, &garr %#lx\n", d,
           (unsigned long)(uintptr_t)a1, (unsigned long)(uintptr_t)a2,
           (unsigned long)mapped, (unsigned long)g, (unsigned long)ga);
    uintptr_t all[5] = {(uintptr_t)a1, (uintptr_t)a2, mapped, g, ga};
    uintptr_t host[4] = {(uintptr_t)&gvar, (uintptr_t)garr, (uintptr_t)heap, (uintptr_t)local};
    for (int i = 0; i < 5; i++) {
      CHECK(all[i] != 0, "device %d address %d is NULL", d, i);
      for (int j = 0; j < 4; j++)
        CHECK(all[i] != host[j], "device %d address %#lx equals a host address", d, (unsigned long)all[i]);
    }
    if (emu) {
      for (int i = 0; i < 3; i++)
        CHECK(in_range(all[i], DATA_BASE, d), "device %d data address %#lx outside its data range", d, (unsigned long)all[i]);
      for (int i = 3; i < 5; i++)
        CHECK(in_range(all[i], CODE_BASE, d), "device %d global address %#lx outside its code range", d, (unsigned long)all[i]);
      for (int j = 0; j < 4; j++)
        CHECK(!in_range(host[j], DATA_BASE, d) && !in_range(host[j], CODE_BASE, d),
              "host address %#lx inside device %d's ranges", (unsigned long)host[j], d);
    }
    omp_target_free(a1, d);
    omp_target_free(a2, d);
  }
  free(heap);
  return tc_done();
}
