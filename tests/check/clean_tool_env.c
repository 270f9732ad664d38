// Check mode offers its OMPT tool to libomp through OMP_TOOL_LIBRARIES
// when the program's libomp could not find it otherwise (clang 22
// binaries), and takes the variable back once libomp has looked: the
// program and its children never see it.
// OMPEMU-RUN: --check
// EXPECT-STDOUT: OMP_TOOL_LIBRARIES unset, x = 3
// EXPECT-STDERR: ompemu: check: no findings
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  int x = 1;
#pragma omp target map(tofrom: x)
  x += 2;
  const char *t = getenv("OMP_TOOL_LIBRARIES");
  printf("OMP_TOOL_LIBRARIES %s, x = %d\n", t ? t : "unset", x);
  return 0;
}
