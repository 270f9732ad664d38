/* How the emu loader refuses an image: one error through the shared
 * diagnostics path, naming the image by its label and saying why. */
#include "config.h"
#include "loader_internal.h"
#include "trace.h"

#include <stdarg.h>
#include <stdio.h>

int img_fail(const struct emu_image *img, const char *fmt, ...) {
  char why[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  ompemu_error("emu", "image %s rejected: %s",
               img && img->label ? img->label : "(unnamed)", why);
  return -1;
}
