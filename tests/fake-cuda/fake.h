/* Internals of the CUDA driver test double (libcuda.so.1 for tests only).
 * One mutex, fake_lock, protects all of its state (lists, stream queues,
 * the allocator, the log).  It is held only for those updates, never while
 * calling out: kernels and copies run without it, since device code may
 * start threads that call back into the fake (__kmpc_target_translate_fptr)
 * while the kernel waits for them.  It is not recursive, so taking it twice
 * on one thread deadlocks at once instead of only under load. */
#ifndef FAKE_CUDA_INTERNAL_H
#define FAKE_CUDA_INTERNAL_H

#include <cuda.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define FAKE_EXPORT __attribute__((visibility("default")))
#define FAKE_MAX_DEVICES 8
#define FAKE_MAX_PARAMS 64

/* Device memory of device D lives in [FAKE_BASE + D * FAKE_STRIDE, + size):
 * far from the heap, libraries, stacks and the emu device's
 * 0x550000000000-0x5553ffffffff. */
#define FAKE_BASE 0x5c0000000000UL
#define FAKE_STRIDE 0x010000000000UL

struct fake_ctx {
  int magic; /* FAKE_CTX_MAGIC */
  int device;
  int refs;  /* cuDevicePrimaryCtxRetain count */
  int peer[FAKE_MAX_DEVICES];
};
#define FAKE_CTX_MAGIC 0x43747843

struct fake_alloc {
  uintptr_t addr;
  size_t size;
  int device; /* -1 for cuMemAllocHost */
  int kind;   /* 0 device, 1 host, 2 managed */
  int live;
  struct fake_alloc *next;
};

struct fake_module;
struct fake_function {
  int magic; /* FAKE_FN_MAGIC */
  void *fn;
  char name[128];
  struct fake_module *mod;
  struct fake_function *next;
};
#define FAKE_FN_MAGIC 0x466e4675

struct fake_module {
  int magic; /* FAKE_MOD_MAGIC */
  int device;
  void *handle;   /* dlopen of the patched copy */
  uintptr_t base; /* link map l_addr, to know which module code belongs to */
  uintptr_t lo, hi; /* its mapped address span */
  struct fake_function *fns;
  struct fake_module *next;
  int loaded;
};
#define FAKE_MOD_MAGIC 0x4d6f644d

enum fake_op_kind { OP_COPY, OP_LAUNCH, OP_RECORD, OP_WAIT };
struct fake_event;
struct fake_stream;
struct fake_op {
  enum fake_op_kind kind;
  void *dst;
  const void *src;
  size_t size;
  struct fake_function *fn;
  int nparams;
  void *vals[FAKE_MAX_PARAMS];
  struct fake_event *ev;
  uint64_t seq;               /* OP_RECORD: its record; OP_WAIT: awaited */
  struct fake_stream *waited; /* OP_WAIT: where that record was queued */
  struct fake_op *next;
};

/* A stream runs its queue on whichever thread waits for it, one thread at
 * a time (busy), so its operations stay in order even when two threads
 * wait for it at once. */
struct fake_stream {
  int magic; /* FAKE_STREAM_MAGIC */
  int device;
  unsigned flags;
  int busy; /* a thread is running its queue */
  struct fake_op *head, *tail;
  struct fake_stream *next;
};
#define FAKE_STREAM_MAGIC 0x5374724d

/* An event's records are numbered; a wait captures the newest record at
 * the time of the wait (as CUDA does) and is met once that one has run. */
struct fake_event {
  int magic; /* FAKE_EVENT_MAGIC */
  int device;
  struct fake_stream *stream; /* where the newest record was queued */
  uint64_t recorded;          /* records made (the newest one's number) */
  uint64_t reached;           /* the newest record that has run */
  int destroyed;              /* cuEventDestroy came before its record ran */
};
#define FAKE_EVENT_MAGIC 0x4576744d

struct fake_state {
  int inited;
  int init_fail;    /* FAKE_CUDA_INIT_FAIL */
  int ndev;         /* FAKE_CUDA_NUM_DEVICES */
  int cc;           /* FAKE_CUDA_CC, e.g. 70 */
  int sms;          /* FAKE_CUDA_SMS */
  long alloc_fail_after; /* FAKE_CUDA_ALLOC_FAIL_AFTER, -1 = never */
  long allocs;      /* successful allocations so far */
  int eager;        /* FAKE_CUDA_EAGER: run async work at once */
  int no_peer;      /* FAKE_CUDA_NO_PEER */
  int launch_fail;  /* FAKE_CUDA_LAUNCH_FAIL */
  char fault[128];  /* FAKE_CUDA_KERNEL_FAULT: this kernel faults */
  size_t mem_size;  /* FAKE_CUDA_MEM (bytes per device) */
  uintptr_t next[FAKE_MAX_DEVICES]; /* bump pointers */
  size_t used[FAKE_MAX_DEVICES];    /* live device bytes */
  int mapped[FAKE_MAX_DEVICES];
  struct fake_ctx ctx[FAKE_MAX_DEVICES];
  struct fake_alloc *allocs_list;
  struct fake_module *modules;
  struct fake_stream *streams;
};

extern struct fake_state fake;
extern pthread_mutex_t fake_lock;
/* Signalled when a stream stops being busy (with fake_lock). */
extern pthread_cond_t fake_idle;

/* Per-function call counters (fake_cuda_calls_of): each driver function
 * starts with FAKE_CALL(), which counts a call under its exported name
 * (__func__ is the name after cuda.h's macros, e.g. cuMemAlloc_v2). */
struct fake_counter {
  const char *name;
  long count; /* atomic */
  int linked;
  struct fake_counter *next;
};
void fake_count(struct fake_counter *c);
/* Block here if the tests' gate is armed for NAME (fake_cuda_gate_arm). */
void fake_gate(const char *name);
#define FAKE_CALL()                                                            \
  do {                                                                         \
    static struct fake_counter fake_counter_ = {__func__, 0, 0, NULL};         \
    fake_count(&fake_counter_);                                                \
  } while (0)

/* fake_core.c */
void fake_init_env(void);
void fake_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The current context's device, or -1 (and logs "no context" for CALL). */
int fake_cur_device(const char *call);
struct fake_ctx *fake_cur_ctx(void);

/* fake_mem.c: 1 if [P, P+N) is device memory the fake knows (an allocation,
 * pinned host memory, or a module's data). */
int fake_valid_dptr(uintptr_t p, size_t n);

/* fake_stream.c: queue OP on S (NULL: legacy stream), run at once if S is
 * NULL or the fake is eager.  Flush runs everything queued on S; flushing
 * for E runs S's queue until E's record number SEQ has run. */
CUresult fake_submit(struct fake_stream *s, struct fake_op *op);
CUresult fake_flush(struct fake_stream *s);
CUresult fake_flush_for(struct fake_stream *s, struct fake_event *e,
                        uint64_t seq);
CUresult fake_flush_blocking(int device);
struct fake_stream *fake_stream_check(CUstream s);

/* fake_module.c */
CUresult fake_run_kernel(struct fake_function *f, int n, void **vals);

#endif
