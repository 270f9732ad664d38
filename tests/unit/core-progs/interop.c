/* interop init/use/destroy (LLVM 14 segfaults with its x86 plugin). */
#include <stdio.h>
#include <omp.h>
int main(void) {
  omp_interop_t io = omp_interop_none;
  #pragma omp interop init(targetsync: io) device(0)
  int rc = 99;
  intptr_t dev = omp_get_interop_int(io, omp_ipr_device_num, &rc);
  const char *fr = omp_get_interop_str(io, omp_ipr_fr_name, NULL);
  const char *nm = omp_get_interop_name(io, omp_ipr_device);
  int rc2 = 0; omp_get_interop_ptr(io, omp_ipr_fr_name, &rc2);
  printf("io=%s dev=%ld rc=%d fr=%s name=%s rc2=%d\n", io ? "obj" : "none", (long)dev, rc, fr ? fr : "(null)", nm ? nm : "(null)", rc2);
  #pragma omp interop use(io)
  #pragma omp interop destroy(io)
  printf("after destroy: %s\n", io ? "obj" : "none");
  return 0;
}
