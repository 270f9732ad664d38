/* Internals of libomptarget.rtl.cuda.so, the CUDA driver API plugin: the
 * driver function table (driver.c), per-device state (device.c), error
 * reporting (errors.c) and what the other files share.  The plugin never
 * links libcuda: cuda.h is included for its types and prototypes only, and
 * every driver function is reached through `cu` (filled by dlsym).
 *
 * Locks: cu_load_once guards the driver load and the device array (written
 * once, read-only afterwards).  Each cu_device.lock protects that device's
 * lists (idle streams, modules, host allocations, idle stagers, pinned
 * buffers, deferred work) and its fptr table; the memory pool has its own
 * lock.  No plugin lock is held across a driver call, with one exception:
 * fptr_lock serialises the writes of the fptr table into modules (image
 * load and set_function_ptr_map, never a data or launch path).
 * tests/fake-cuda/lock-lint.sh checks this. */
#ifndef OMPEMU_CUDA_RTL_H
#define OMPEMU_CUDA_RTL_H

#include <cuda.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <ompemu/plugin.h>

#include "trace.h"

#define CU_WHO "cuda"
#define CU_EXPORT __attribute__((visibility("default")))
#define CU_HIDDEN __attribute__((visibility("hidden")))

/* Every driver function the plugin calls.  The names go through cuda.h's
 * macros first, so cuMemAlloc becomes cuMemAlloc_v2 etc. exactly where the
 * header maps them, both in the table and in the dlsym name. */
#define CU_DRIVER_FUNCS(X)                                                     \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet)           \
  X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDevicePrimaryCtxRetain)       \
  X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuStreamCreate)            \
  X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamWaitEvent)               \
  X(cuMemAlloc) X(cuMemFree) X(cuMemAllocHost) X(cuMemFreeHost)                \
  X(cuMemHostAlloc)                                                            \
  X(cuMemAllocManaged) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)         \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)               \
  X(cuMemcpyPeer) X(cuMemcpyPeerAsync) X(cuDeviceCanAccessPeer)                \
  X(cuCtxEnablePeerAccess) X(cuModuleLoadDataEx) X(cuModuleUnload)             \
  X(cuModuleGetFunction) X(cuModuleGetGlobal) X(cuLaunchKernel)                \
  X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventDestroy)    \
  X(cuGetErrorName) X(cuGetErrorString)

#define CU_FIELD(fn) __typeof__(fn) *fn;
struct cu_driver {
  void *handle; /* dlopen("libcuda.so.1") */
  int version;  /* cuDriverGetVersion */
  CU_DRIVER_FUNCS(CU_FIELD)
};
#undef CU_FIELD

/* The driver table; valid once cu_ready() returned > 0. */
extern struct cu_driver cu CU_HIDDEN;

/* Default launch geometry (see README.md "Launch geometry"). */
#define CU_DEFAULT_THREADS 128
#define CU_TEAMS_PER_SM 4
#define CU_FALLBACK_TEAMS 128

/* One loaded image on one device (module.c). */
struct cu_kernel {
  uint32_t magic; /* CU_KERNEL_MAGIC: checks run_target_region's entry */
  int32_t device;
  CUfunction fn;
  const char *name; /* the host entry's name (host memory, static) */
  int exec_mode;    /* <name>_exec_mode: CU_EXEC_SPMD when absent */
};
/* Values of clang's <kernel>_exec_mode byte (LLVM 14 device runtime). */
enum { CU_EXEC_SPMD = 0, CU_EXEC_GENERIC = 1, CU_EXEC_GENERIC_SPMD = 2 };
#define CU_KERNEL_MAGIC 0x6b43754bu

struct cu_module {
  CUmodule mod;
  const void *image;     /* ImageStart, names the module in messages */
  __tgt_target_table table;
  __tgt_offload_entry *entries; /* device entries, host order */
  struct cu_kernel *kernels;    /* one slot per entry */
  struct cu_module *next;
};

struct cu_host_alloc {
  void *ptr;
  struct cu_host_alloc *next;
};

/* pool.c: small device allocations are kept for reuse, by power-of-two
 * size class from CU_POOL_MIN bytes up to the threshold. */
#define CU_POOL_MIN 256
#define CU_POOL_CLASSES 24
struct cu_pool_block {
  CUdeviceptr ptr;
  unsigned cls;
  struct cu_pool_block *next; /* in a hash chain (live) or a free list */
};
struct cu_pool {
  pthread_mutex_t lock;
  struct cu_pool_block *idle[CU_POOL_CLASSES]; /* freed, kept for reuse */
  struct cu_pool_block **live;                 /* hash of handed-out blocks */
  size_t nbuckets, nlive;
  size_t idle_bytes;
  struct cu_pool_block *spare; /* records to reuse */
};

/* staging.c: pinned host memory for large copies.  A stager is a pair of
 * CHUNK-sized pinned buffers with an event each and a stream, for one
 * synchronous copy at a time (double buffering); a pinned buffer holds an
 * async copy's bytes until the queue is synchronized (struct cu_deferred). */
struct cu_stager {
  void *buf[2];
  CUevent ev[2];
  CUstream stream;
  struct cu_stager *next;
};
struct cu_pinned {
  void *ptr;
  size_t size;
  struct cu_pinned *next;
};
struct cu_deferred {
  CUstream stream;       /* the queue it waits for */
  struct cu_pinned *buf; /* released after the synchronize */
  void *copy_to;         /* retrieve: host destination of BUF's bytes */
  size_t size;
  struct cu_deferred *next;
};

struct cu_device {
  CUdevice dev;
  CUcontext ctx;   /* primary context, retained by init_device */
  int initialized; /* atomic: set once CTX is valid */
  char name[128];
  int cc_major, cc_minor;
  int num_sms, max_threads, max_grid_x, warp_size;
  pthread_mutex_t lock;
  CUstream *idle_streams;
  int nidle_streams, idle_streams_cap;
  struct cu_module *modules;
  struct cu_host_alloc *host_allocs;
  CUdeviceptr fptr_table; /* device copy of the fptr table, 0 if none */
  uint64_t fptr_n;        /* its entries */
  pthread_mutex_t fptr_lock;
  struct cu_pool pool;
  struct cu_stager *stagers; /* idle */
  int nstagers;              /* created, idle or in use */
  struct cu_pinned *pinned;  /* idle pinned buffers */
  size_t pinned_bytes;       /* all pinned buffers, idle or in use */
  struct cu_deferred *deferred;
  int ndeferred; /* atomic: the list is empty when 0 */
};

/* Tunables, read when the driver is loaded (the Memory part of README.md). */
struct cu_tunables {
  size_t pool_threshold; /* LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD, 0: off */
  size_t pool_idle_max;  /* OMPEMU_CUDA_POOL_MAX: idle bytes kept */
  size_t stage_min;      /* OMPEMU_CUDA_STAGING_THRESHOLD, 0: off */
  size_t stage_chunk;    /* OMPEMU_CUDA_STAGING_CHUNK */
  size_t pinned_max;     /* OMPEMU_CUDA_STAGING_MAX */
};
extern struct cu_tunables cu_tune CU_HIDDEN;
#define CU_MAX_STAGERS 4

/* driver.c: load libcuda and cuInit once; the number of devices (0 when
 * there is no usable driver, with a trace note saying why). */
int cu_ready(void) CU_HIDDEN;
int cu_num_devices(void) CU_HIDDEN;
struct cu_device *cu_dev(int32_t id) CU_HIDDEN; /* NULL if out of range */
/* The devices found so far (no driver load); cu_unload frees their
 * records (the plugin's destructor, after releasing what they hold). */
int cu_loaded_devices(void) CU_HIDDEN;
void cu_unload(void) CU_HIDDEN;

/* device.c: the device, initialised; NULL with an error naming WHAT
 * otherwise.  No driver call: cu_use makes the device's context current
 * on the calling thread, before a driver call that needs it (0, or -1
 * with an error). */
struct cu_device *cu_enter(int32_t id, const char *what) CU_HIDDEN;
int cu_use(struct cu_device *d, int32_t id, const char *what) CU_HIDDEN;

/* streams.c: a stream for ASYNC_INFO (one from the idle list if its Queue
 * is NULL); idle streams; release of everything at deinit. */
CUstream cu_queue(struct cu_device *d, int32_t id, __tgt_async_info *ai) CU_HIDDEN;
CUstream cu_stream_get(struct cu_device *d, int32_t id) CU_HIDDEN;
int cu_stream_put(struct cu_device *d, int32_t id, CUstream s) CU_HIDDEN;
int cu_streams_fini(struct cu_device *d, int32_t id) CU_HIDDEN;

/* pool.c: a block of at least SIZE bytes (for host HST) for device D when
 * SIZE is at most the threshold (*POOLED = 1; 0 with an error when none can be had),
 * else *POOLED = 0 and nothing done.  cu_pool_free: 1 when PTR was a pool
 * block (kept or freed), 0 when not, -1 on a driver error.  cu_pool_trim
 * frees the idle blocks (before an allocation is retried); cu_pool_fini
 * frees every block. */
CUdeviceptr cu_pool_alloc(struct cu_device *d, int32_t id, size_t size,
                          void *hst, int *pooled) CU_HIDDEN;
int cu_pool_free(struct cu_device *d, int32_t id, CUdeviceptr ptr) CU_HIDDEN;
int cu_pool_trim(struct cu_device *d, int32_t id) CU_HIDDEN;
int cu_pool_fini(struct cu_device *d, int32_t id) CU_HIDDEN;
/* cuMemAlloc with the context current; on CUDA_ERROR_OUT_OF_MEMORY the
 * pool's idle blocks are freed and the allocation tried once more.
 * Returns the CUresult; no message. */
CUresult cu_mem_alloc(struct cu_device *d, int32_t id, CUdeviceptr *p,
                      size_t size) CU_HIDDEN;

/* staging.c: host<->device copies of at least cu_tune.stage_min bytes
 * through pinned buffers.  cu_stage_sync copies now (TO_DEV: HST to DP);
 * cu_stage_async queues the copy on stream S, the host side done before
 * it returns (submit) or at the queue's synchronize (retrieve).  Both
 * return 1 when done, 0 when they could not stage (the caller copies
 * directly), -1 on an error (reported). */
int cu_stage_sync(struct cu_device *d, int32_t id, int to_dev, CUdeviceptr dp,
                  void *hst, size_t n) CU_HIDDEN;
int cu_stage_async(struct cu_device *d, int32_t id, int to_dev, CUdeviceptr dp,
                   void *hst, size_t n, CUstream s) CU_HIDDEN;
/* After stream S was synchronized (OK: without an error): copy the
 * retrieves' bytes to the host (when OK) and release their buffers. */
void cu_deferred_finish(struct cu_device *d, CUstream s, int ok) CU_HIDDEN;
int cu_staging_fini(struct cu_device *d, int32_t id) CU_HIDDEN;

/* errors.c: R != CUDA_SUCCESS → one error line naming CALL, the CUDA error
 * name and string, device ID and the object (printf FMT); returns -1.
 * R == CUDA_SUCCESS → 0. */
int cu_check(CUresult r, const char *call, int32_t id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) CU_HIDDEN;
const char *cu_err_name(CUresult r) CU_HIDDEN;
const char *cu_err_string(CUresult r) CU_HIDDEN;

/* module.c: the SM number (e.g. 70, 100) an EM_CUDA ELF was built for, 0 if
 * the header does not say.  cu_modules_fini unloads D's modules. */
int cu_elf_sm(const unsigned char *elf, size_t size) CU_HIDDEN;
int cu_modules_fini(struct cu_device *d, int32_t id) CU_HIDDEN;

/* launch.c */
int32_t cu_launch(int32_t id, void *entry, void **args, ptrdiff_t *offsets,
                  int32_t n, int32_t teams, int32_t threads,
                  uint64_t tripcount, __tgt_async_info *ai) CU_HIDDEN;

#endif
