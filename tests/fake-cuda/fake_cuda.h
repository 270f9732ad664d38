/* What tests may call in the CUDA driver test double besides the driver
 * API: call counters, live allocations and the call log (one line per
 * call: "cuMemAlloc_v2 dev=0 size=64 -> 0x00005c0000000000", ...). */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

/* Driver calls so far (every exported driver function counts), those of
 * the function named NAME (its exported name: "cuMemAlloc_v2"), and a reset
 * of all counters to 0. */
long fake_cuda_calls_total(void);
long fake_cuda_calls_of(const char *name);
void fake_cuda_calls_reset(void);
/* Device (and managed) allocations not yet freed; pinned host ones. */
int fake_cuda_live_device_allocs(void);
int fake_cuda_live_host_allocs(void);

/* The gate: the first later call of the driver function NAME (as
 * fake_cuda_calls_of names it), or the first run of a kernel when NAME is
 * "run KERNEL", blocks until fake_cuda_gate_open(); _waiting says whether a
 * call is blocked there now.  Tests use it to hold one thread inside the
 * driver while another works. */
void fake_cuda_gate_arm(const char *name);
int fake_cuda_gate_waiting(void);
void fake_cuda_gate_open(void);

/* The whole log so far, NUL-terminated (valid until the next call). */
const char *fake_cuda_log_text(void);
void fake_cuda_log_clear(void);
/* How many times NEEDLE occurs in the log. */
int fake_cuda_log_count(const char *needle);

#endif
