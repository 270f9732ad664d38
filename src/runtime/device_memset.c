/* omp_target_memset (OpenMP 6.0, exported by LLVM 19 and 22): fill device
 * memory with a byte.  The plugin interface has no fill operation, so the
 * runtime submits a host buffer of that byte, in chunks, through the
 * device's ordinary copy: any plugin (emu, CUDA, HSA) can do it, and the
 * emu device checks each copy against the block it writes to. */
#include "config.h"
#include "data.h"
#include "trace.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bytes submitted per copy: a big fill takes few plugin calls, and the
 * buffer stays small. */
#define FILL_CHUNK ((size_t)64 * 1024)

int rt_target_memset(void *ptr, int value, size_t count, int device,
                     const char *api) {
  if (count == 0 || !ptr)
    return OFFLOAD_SUCCESS; /* LLVM's choice for these unspecified cases */
  if ((int64_t)count < 0 || (uintptr_t)ptr + count < (uintptr_t)ptr) {
    ompemu_error("ompemu", "%s: %zu bytes at " OMPEMU_PTR " run past the end "
                 "of the address space: nothing done", api, count,
                 OMPEMU_P(ptr));
    return OFFLOAD_FAIL;
  }
  int host = rt_num_devices();
  if (device == host) {
    memset(ptr, value, count);
    return OFFLOAD_SUCCESS;
  }
  struct rt_device *d = device >= 0 ? rt_device_get(device) : NULL;
  if (!d) {
    ompemu_error("ompemu", "%s: device number %d is neither a device "
                 "(0 to %d) nor the host (%d): nothing done", api, device,
                 host - 1, host);
    return OFFLOAD_FAIL;
  }
  if (rt_device_prepare(d) != 0) {
    ompemu_error("ompemu", "%s: device %d could not be started", api, device);
    return OFFLOAD_FAIL;
  }
  size_t chunk = count < FILL_CHUNK ? count : FILL_CHUNK;
  unsigned char *buf = malloc(chunk);
  if (!buf) {
    ompemu_error("ompemu", "%s: out of host memory for a %zu-byte fill "
                 "buffer", api, chunk);
    return OFFLOAD_FAIL;
  }
  memset(buf, value, chunk);
  DTRACE(2, "device %d: %s " OMPEMU_PTR ", byte 0x%02x, %zu bytes", device,
         api, OMPEMU_P(ptr), (unsigned)(unsigned char)value, count);
  int rc = 0;
  for (size_t done = 0; done < count && rc == 0; done += chunk) {
    size_t n = count - done < chunk ? count - done : chunk;
    rc = rt_dev_submit(d, (char *)ptr + done, buf, (int64_t)n, NULL);
  }
  free(buf);
  if (rc != 0) {
    ompemu_error("ompemu", "%s: filling %zu bytes at " OMPEMU_PTR " on "
                 "device %d failed", api, count, OMPEMU_P(ptr), device);
    return OFFLOAD_FAIL;
  }
  return OFFLOAD_SUCCESS;
}
