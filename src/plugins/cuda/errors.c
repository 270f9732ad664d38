/* CUDA error reporting: every failed driver call becomes one line naming
 * the call, the CUDA error name and string (cuGetErrorName /
 * cuGetErrorString), the device and the object involved. */
#include "config.h"
#include "cuda_rtl.h"

#include <stdarg.h>
#include <stdio.h>

const char *cu_err_name(CUresult r) {
  const char *s = NULL;
  if (cu.cuGetErrorName && cu.cuGetErrorName(r, &s) == CUDA_SUCCESS && s)
    return s;
  return "CUDA_ERROR_UNKNOWN_CODE";
}

const char *cu_err_string(CUresult r) {
  const char *s = NULL;
  if (cu.cuGetErrorString && cu.cuGetErrorString(r, &s) == CUDA_SUCCESS && s)
    return s;
  return "no description";
}

int cu_check(CUresult r, const char *call, int32_t id, const char *fmt, ...) {
  if (r == CUDA_SUCCESS)
    return 0;
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  ompemu_error(CU_WHO, "%s failed on device %d for %s: %s (%d): %s", call,
               (int)id, what, cu_err_name(r), (int)r, cu_err_string(r));
  return -1;
}
