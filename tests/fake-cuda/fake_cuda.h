/* What tests may call in the CUDA driver test double besides the driver
 * API: the call log (one line per call: "cuMemAlloc_v2 dev=0 size=64 ->
 * 0x00005c0000000000", ...). */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

/* The whole log so far, NUL-terminated (valid until the next call). */
const char *fake_cuda_log_text(void);
void fake_cuda_log_clear(void);
/* How many times NEEDLE occurs in the log. */
int fake_cuda_log_count(const char *needle);

#endif
