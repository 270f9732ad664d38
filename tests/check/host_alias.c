// A host pointer reaching device code: the runtime's checking mode will
// replace it by an alias from the emu plugin's ompemu_host_alias extension
// (here the program asks the plugin itself); a kernel that dereferences the
// alias faults and the message names the host pointer, the description the
// runtime gave and the offset.
// RUN-ENV: OMPEMU_CHECK=1
// EXPECT-EXIT: 99
// EXPECT-STDERR: dereferenced host pointer
// EXPECT-STDERR: (row 2 of rows, a host pointer) + 24 (read at 0x0000554400
#include <dlfcn.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

int main(void) {
  void *plugin = dlopen("libomptarget.rtl.emu.so", RTLD_NOW | RTLD_NOLOAD);
  void *(*alias)(int32_t, void *, const char *) =
      plugin ? (void *(*)(int32_t, void *, const char *))dlsym(
                   plugin, "__tgt_rtl_ompemu_host_alias")
             : NULL;
  if (!alias) {
    printf("the emu plugin is not loaded\n");
    return 1;
  }
  static double row[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  double *r = alias(0, row, "row 2 of rows, a host pointer");
  if (alias(0, row, "row 2 of rows, a host pointer") != r ||
      ((uintptr_t)r & 4095) != ((uintptr_t)row & 4095)) {
    printf("aliases differ for the same pointer, or lose its alignment\n");
    return 1;
  }
  printf("alias %p for %p\n", (void *)r, (void *)row);
  fflush(stdout);
  double x = 0;
#pragma omp target is_device_ptr(r) map(from: x)
  x = r[3];
  printf("read %g through an alias: not caught\n", x);
  return 0;
}
