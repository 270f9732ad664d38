/* Test-only interface of the HSA runtime test double (libhsa-runtime64.so.1
 * built from tests/fake-hsa/, never installed).  The double implements the
 * subset of the HSA API the hsa plugin uses, on host memory at fixed
 * addresses, and records every call in a log that tests read through the
 * functions below (and, with FAKE_HSA_LOG=FILE, in FILE).
 *
 * Environment, read when hsa_init takes the reference count from 0 to 1:
 *   FAKE_HSA_INIT_FAIL=1         hsa_init fails (HSA_STATUS_ERROR_OUT_OF_RESOURCES)
 *   FAKE_HSA_NO_GPU=1            only the CPU agent exists
 *   FAKE_HSA_GPUS=gfx906,gfx908  the GPU agents (default: one gfx906)
 *   FAKE_HSA_ALLOC_FAIL_AFTER=N  allocations after the first N fail
 *   FAKE_HSA_COPY_FAIL_AFTER=N   async copies after the first N end with
 *                                their completion signal at -1 (DMA error)
 *   FAKE_HSA_QUEUE_FAIL=1        hsa_queue_create fails
 *   FAKE_HSA_MEM_SIZE=BYTES      device memory per GPU (default 256 MiB)
 *   FAKE_HSA_LOAD_DELAY_MS=N     hsa_executable_load_agent_code_object takes
 *                                N ms (read at each call)
 *   FAKE_HSA_LOG=FILE            append the call log to FILE
 *
 * Memory: GPU k's coarse-grained memory starts at FAKE_HSA_GPU_BASE + k *
 * FAKE_HSA_GPU_STRIDE; fine-grained system memory (kernarg, staging,
 * HOST/SHARED) at FAKE_HSA_SYS_BASE.  Both are away from the emu device
 * (0x550000000000-0x5553ffffffff) and the CUDA double (0x5c0000000000).
 *
 * Code objects: an x86-64 shared object whose e_machine is patched to
 * EM_AMDGPU (224) and e_flags to the agent's mach.  Loading restores
 * e_machine into a temporary file and dlopens it; "<name>.kd" resolves to a
 * fake kernel descriptor for the host function <name>; a dispatch calls it
 * once with the kernarg buffer's pointer-sized values as arguments.  The
 * double also provides __kmpc_target_translate_fptr to the code it runs,
 * searching the running module's __omp_offloading_fptr_map_p table. */
#ifndef FAKE_HSA_H
#define FAKE_HSA_H

#include <stddef.h>

#define FAKE_HSA_GPU_BASE 0x5e0000000000UL
#define FAKE_HSA_GPU_STRIDE 0x001000000000UL
#define FAKE_HSA_SYS_BASE 0x5f0000000000UL
#define FAKE_HSA_SYS_SIZE (256UL << 20)

/* The whole log, one call per line. */
const char *fake_hsa_log_text(void);
void fake_hsa_log_clear(void);
/* Lines containing SUBSTR. */
int fake_hsa_log_count(const char *substr);
/* The first line containing SUBSTR (copied into BUF of SIZE), or NULL. */
const char *fake_hsa_log_line(const char *substr, char *buf, size_t size);
/* Live allocations (all pools), and the hsa_init reference count. */
int fake_hsa_live_allocations(void);
int fake_hsa_refcount(void);
/* Signals created and not yet destroyed (queue doorbells included). */
int fake_hsa_live_signals(void);

#endif
