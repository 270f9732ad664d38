/* Main program of the two-descriptor test: the executable embeds the hello
 * image (hello.host.c built with -DLOWERED_NO_MAIN) and calls into a
 * shared library that embeds its own.  Built without the library for the
 * link-mode test (LOWERED_NO_DSOLIB), where lowered_hello itself may live
 * in a shared library. */
#include <stdio.h>

int lowered_hello(void);
int lowered_dsolib(void);

int main(void) {
  int r = lowered_hello();
#ifndef LOWERED_NO_DSOLIB
  r |= lowered_dsolib();
#endif
  if (r == 0)
    printf("dso: ok\n");
  return r;
}
