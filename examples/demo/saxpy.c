/* The Quick start demo: a small OpenMP offload program (saxpy plus a
 * declare-target global) compiled by clang 14 and run on ompemu's emulated
 * device.  It prints where the data lives on the device and checks results. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#define N 1024

#pragma omp declare target
float scale = 2.0f;
#pragma omp end declare target

int main(void) {
  float x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }

  printf("devices: %d\n", omp_get_num_devices());
  scale = 3.0f;
#pragma omp target update to(scale)

  uintptr_t dev_x = 0, dev_scale = 0;
  int on_device = 0;
#pragma omp target data map(to: x) map(tofrom: y)
  {
#pragma omp target map(from: dev_x, dev_scale, on_device)
    {
      dev_x = (uintptr_t)&x[0];
      dev_scale = (uintptr_t)&scale;
      on_device = !omp_is_initial_device();
    }
#pragma omp target teams distribute parallel for
    for (int i = 0; i < N; i++)
      y[i] = scale * x[i] + y[i];
  }

  printf("ran on the device: %s\n", on_device ? "yes" : "no");
  printf("host x at %p, device x at 0x%016lx\n", (void *)x, (unsigned long)dev_x);
  printf("host scale at %p, device scale at 0x%016lx\n", (void *)&scale,
         (unsigned long)dev_scale);
  int bad = 0;
  for (int i = 0; i < N; i++)
    if (y[i] != 3.0f * (float)i + 1.0f)
      bad++;
  printf("saxpy: %s (%d wrong)\n", bad ? "FAILED" : "ok", bad);
  return bad || !on_device;
}
