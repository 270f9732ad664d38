/* Error reporting of the hsa plugin: every failure names the HSA call and
 * the runtime's own status text (hsa_status_string). */
#include "config.h"
#include "hsa_plugin.h"
#include "trace.h"

#include <stdarg.h>
#include <stdio.h>

/* Text of status ST from the loaded runtime, or a placeholder when the
 * runtime cannot say (not loaded, unknown code). */
const char *hsa_status_text(hsa_status_t st) {
  const char *s = NULL;
  if (H.hsa_status_string && H.hsa_status_string(st, &s) == HSA_STATUS_SUCCESS &&
      s)
    return s;
  return "unknown HSA status";
}

/* Report that CALL returned ST, followed by the caller's context FMT. */
void hsa_fail(const char *call, hsa_status_t st, const char *fmt, ...) {
  char ctx[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx, sizeof ctx, fmt, ap);
  va_end(ap);
  ompemu_error(HSA_WHO, "%s failed (status 0x%x: %s): %s", call, (unsigned)st,
               hsa_status_text(st), ctx);
}
