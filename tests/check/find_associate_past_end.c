// omp_target_associate_ptr of a range that runs past the end of the
// device block: D has 32 doubles, the association asks for 32 from
// element 16.  Refused at the call, in every mode (here the default
// one), naming the call's line, the block and its size; nothing is
// associated, so a later association inside the block succeeds.
// EXPECT-STDERR: ompemu: error: omp_target_associate_ptr at find_associate_past_end.c:20: device_ptr d = 0x
// EXPECT-STDERR: + device_offset 128 (16 * sizeof(double)), 256 bytes, runs 128 bytes past the end of its block [0x
// EXPECT-STDERR: ) of 256 bytes (device 0 memory, allocated by omp_target_alloc at find_associate_past_end.c:18): nothing associated
// EXPECT-STDOUT: refused at the call, then associated inside
#include <omp.h>
#include <stdio.h>

int main(void) {
  int dev = omp_get_default_device();
  double h[64];
  for (int i = 0; i < 64; i++)
    h[i] = i;
  double *d = omp_target_alloc(32 * sizeof(double), dev);
  if (!d) return 1;
  int r = omp_target_associate_ptr(h, d, 32 * sizeof(double), 16 * sizeof(double), dev);
  int present = omp_target_is_present(h, dev);
  int r2 = omp_target_associate_ptr(h, d, 16 * sizeof(double), 16 * sizeof(double), dev);
  int ok = r != 0 && !present && r2 == 0;
  printf("%s\n", ok ? "refused at the call, then associated inside" : "associated past the end");
  omp_target_disassociate_ptr(h, dev);
  omp_target_free(d, dev);
  return ok ? 0 : 1;
}
