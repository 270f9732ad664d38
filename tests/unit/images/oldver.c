/* Test image referring to an old version of a libc symbol: realpath@GLIBC_2.2.5
 * is a different function from the default realpath@@GLIBC_2.3. */
#include <stddef.h>
__asm__(".symver old_realpath, realpath@GLIBC_2.2.5");
char *old_realpath(const char *, char *);
void *realpath_ptr(void) { return (void *)old_realpath; }
