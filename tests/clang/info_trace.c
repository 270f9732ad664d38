// LIBOMPTARGET_INFO prints LLVM's info lines: kernel entry with its
// arguments, new map entries, and data transfers.
// CFLAGS: -g
// RUN-ENV: LIBOMPTARGET_INFO=41
// EXPECT-STDERR: info: Entering OpenMP kernel at
// EXPECT-STDERR: Entering OpenMP kernel at info_trace.c:21:1 with 2 arguments:
// EXPECT-STDERR: info: tofrom(buf)[40]
// EXPECT-STDERR: info: firstprivate(k)[4] (implicit)
// EXPECT-STDERR: info: Creating new map entry with HstPtrBegin=0x
// EXPECT-STDERR: info: Copying data from host to device, HstPtr=0x
// EXPECT-STDERR: info: Copying data from device to host, TgtPtr=0x
// EXPECT-STDERR: info: Removing map entry with HstPtrBegin=0x
// EXPECT-STDOUT: buf[9] = 18
#include "check.h"
#include <stdio.h>

int main(void) {
  int buf[10];
  int k = 2;
  for (int i = 0; i < 10; i++) buf[i] = i;
#pragma omp target map(tofrom: buf)
  for (int i = 0; i < 10; i++) buf[i] *= k;
  printf("buf[9] = %d\n", buf[9]);
  return buf[9] == 18 ? 0 : 1;
}
