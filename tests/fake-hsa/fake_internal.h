/* Shared state of the HSA test double's files.  fake_lock protects the
 * agents, pools, allocation records and executables; each queue and signal
 * has its own lock.  Kernels run without fake_lock held. */
#ifndef FAKE_INTERNAL_H
#define FAKE_INTERNAL_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <pthread.h>
#include <stdint.h>

#include "fake_hsa.h"

#define FAKE_MAX_AGENTS 4

struct fake_agent;

struct fake_pool {
  int is_system; /* 1: fine-grained system memory, 0: GPU coarse-grained */
  struct fake_agent *owner;
  uintptr_t base, size, next;
};

struct fake_agent {
  int is_gpu;
  int index; /* GPU index (0..), -1 for the CPU */
  char name[64];
  uint32_t mach;
  struct fake_pool *pool; /* its own pool (GPU: coarse, CPU: system) */
};

struct fake_alloc {
  uintptr_t ptr, size;
  struct fake_pool *pool;
  int live;
  int is_code; /* a loaded code object's segments, not freeable */
  unsigned allowed; /* bit i: GPU i may access (system memory) */
};

struct fake_state {
  int refcount;
  int nagents;
  struct fake_agent agents[FAKE_MAX_AGENTS];
  struct fake_pool gpu_pool[FAKE_MAX_AGENTS];
  struct fake_pool sys_pool;
  struct fake_alloc *allocs;
  size_t nallocs, cap;
  long allocs_done, alloc_fail_after;
  long copies_done, copy_fail_after; /* async copies; -1: never fail */
  int queue_fail;                    /* hsa_queue_create fails */
  void *self; /* own handle, promoted to RTLD_GLOBAL while initialised */
};

/* The fake kernel descriptor "<name>.kd" resolves to. */
#define FAKE_KD_MAGIC 0x46414b454b440000ull
struct fake_kd {
  uint64_t magic;
  void (*fn)(void);
  void *exec; /* struct fake_exec of the module */
  char name[256];
};
/* The executable whose kernel runs on this thread (for fptr translation). */
extern __thread void *fake_running_exec;

extern struct fake_state fake;
extern pthread_mutex_t fake_lock;

void fake_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fake_ready(void); /* hsa_init done */
struct fake_agent *fake_agent_of(hsa_agent_t a);
const char *fake_agent_name(const struct fake_agent *a);
uint32_t fake_mach_of(const char *name);
/* The live allocation containing [P, P+SIZE), or NULL (fake_lock held). */
struct fake_alloc *fake_alloc_find(uintptr_t p, uintptr_t size);
long fake_code_range_add(struct fake_agent *agent, uintptr_t lo, uintptr_t hi);
void fake_code_range_del(long idx);
void fake_mem_init(long long gpu_size);
void fake_mem_fini(void);
void fake_exec_fini(void);
void fake_signal_sub(hsa_signal_t s, hsa_signal_value_t v);

#endif
