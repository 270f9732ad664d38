/* Internals of libomptarget.rtl.cuda.so, the CUDA driver API plugin: the
 * driver function table (driver.c), per-device state (device.c), error
 * reporting (errors.c) and what the other files share.  The plugin never
 * links libcuda: cuda.h is included for its types and prototypes only, and
 * every driver function is reached through `cu` (filled by dlsym).
 *
 * Locks: cu_load_once guards the driver load and the device array (written
 * once, read-only afterwards).  Each cu_device.lock protects that device's
 * stream pool, module list, host-allocation list and fptr table. */
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

struct cu_device {
  CUdevice dev;
  CUcontext ctx; /* primary context, retained by init_device */
  int initialized;
  char name[128];
  int cc_major, cc_minor;
  int num_sms, max_threads, max_grid_x, warp_size;
  pthread_mutex_t lock;
  CUstream *pool; /* idle streams */
  int pool_len, pool_cap;
  struct cu_module *modules;
  struct cu_host_alloc *host_allocs;
  CUdeviceptr fptr_table; /* device copy of the fptr table, 0 if none */
  uint64_t fptr_n;        /* its entries */
};

/* driver.c: load libcuda and cuInit once; the number of devices (0 when
 * there is no usable driver, with a trace note saying why). */
int cu_ready(void) CU_HIDDEN;
int cu_num_devices(void) CU_HIDDEN;
struct cu_device *cu_dev(int32_t id) CU_HIDDEN; /* NULL if out of range */

/* device.c: the device, initialised, with its context current on the
 * calling thread; NULL with an error naming WHAT otherwise. */
struct cu_device *cu_enter(int32_t id, const char *what) CU_HIDDEN;
/* A stream for ASYNC_INFO (taking one from the pool if its Queue is NULL). */
CUstream cu_queue(struct cu_device *d, int32_t id, __tgt_async_info *ai) CU_HIDDEN;
CUstream cu_stream_get(struct cu_device *d, int32_t id) CU_HIDDEN;
void cu_stream_put(struct cu_device *d, CUstream s) CU_HIDDEN;

/* errors.c: R != CUDA_SUCCESS → one error line naming CALL, the CUDA error
 * name and string, device ID and the object (printf FMT); returns -1.
 * R == CUDA_SUCCESS → 0. */
int cu_check(CUresult r, const char *call, int32_t id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5))) CU_HIDDEN;
const char *cu_err_name(CUresult r) CU_HIDDEN;
const char *cu_err_string(CUresult r) CU_HIDDEN;

/* module.c: the SM number (e.g. 70, 100) an EM_CUDA ELF was built for, 0 if
 * the header does not say. */
int cu_elf_sm(const unsigned char *elf, size_t size) CU_HIDDEN;

/* launch.c */
int32_t cu_launch(int32_t id, void *entry, void **args, ptrdiff_t *offsets,
                  int32_t n, int32_t teams, int32_t threads,
                  uint64_t tripcount, __tgt_async_info *ai) CU_HIDDEN;

#endif
