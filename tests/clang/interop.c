// OpenMP 5.1 interop objects: init(targetsync) on a device, the property
// queries, use (waiting for its dependences), destroy.  LLVM 14's runtime
// with its x86_64 plugin gives no object here (omp_interop_none; a
// segfault in other cases, docs/abi-clang14.md §13.4).
// CFLAGS: -fopenmp-version=51
// LLVM14-FAILS: interop init gives no object with the x86_64 plugin (§13.4)
#include "check.h"
#include <omp.h>

int main(void) {
  int dev = omp_get_default_device();
  omp_interop_t obj = omp_interop_none;
#pragma omp interop init(targetsync: obj) device(dev)
  CHECK(obj != omp_interop_none, "interop init gave omp_interop_none");
  if (obj == omp_interop_none) return tc_done();
  int rc = 12345;
  omp_intptr_t num = omp_get_interop_int(obj, omp_ipr_device_num, &rc);
  CHECK(rc == omp_irc_success, "omp_ipr_device_num: rc %d", rc);
  CHECK(num == dev, "omp_ipr_device_num = %ld, want %d", (long)num, dev);
  rc = 12345;
  (void)omp_get_interop_int(obj, (omp_interop_property_t)1000, &rc);
  CHECK(rc == omp_irc_out_of_range, "property 1000: rc %d, want omp_irc_out_of_range", rc);
  int x = 1;
#pragma omp target nowait map(tofrom: x) depend(inout: x)
  x = 2;
#pragma omp interop use(obj) depend(inout: x)
  CHECK(x == 2, "interop use did not wait for the dependent target task: x = %d", x);
#pragma omp interop destroy(obj)
  CHECK(obj == omp_interop_none, "destroy left the object set");
  return tc_done();
}
