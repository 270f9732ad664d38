/* rtl_probe PLUGIN: dlopen a libomptarget plugin (ompemu's or LLVM's) the
 * way a runtime does and print "devices N" from __tgt_rtl_number_of_devices.
 * Exit 2 when the plugin cannot be loaded or lacks the function. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: rtl_probe PLUGIN.so\n");
    return 2;
  }
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "rtl_probe: %s\n", dlerror());
    return 2;
  }
  int32_t (*n)(void) = (int32_t(*)(void))dlsym(h, "__tgt_rtl_number_of_devices");
  if (!n) {
    fprintf(stderr, "rtl_probe: no __tgt_rtl_number_of_devices in %s\n", argv[1]);
    return 2;
  }
  printf("devices %d\n", (int)n());
  fflush(stdout);
  return 0;
}
