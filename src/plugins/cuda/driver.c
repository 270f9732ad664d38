/* Loading the CUDA driver at run time: dlopen("libcuda.so.1"), the function
 * table by plain dlsym (the _v2 names come from cuda.h's own macros), cuInit
 * and the device list.  No driver, a missing function or a failing cuInit
 * all give 0 devices and a trace note ("cuda: no devices (REASON)", the
 * details at level 2), never an error or a crash. */
#include "config.h"
#include "cuda_rtl.h"
#include "envvar.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cu_driver cu;
struct cu_tunables cu_tune;

static pthread_once_t cu_load_once = PTHREAD_ONCE_INIT;
static int cu_ndevices;             /* written once under cu_load_once */
static struct cu_device *cu_devices;

#define CU_XSTR(x) CU_STR(x)
#define CU_STR(x) #x

/* Resolve every CU_DRIVER_FUNCS name in HANDLE into `cu`; the first
 * missing name is returned in *MISSING. */
static int cu_resolve(void *handle, const char **missing) {
#define CU_SYM(fn)                                                             \
  if (!(cu.fn = (__typeof__(cu.fn))dlsym(handle, CU_XSTR(fn)))) {              \
    *missing = CU_XSTR(fn);                                                    \
    return -1;                                                                 \
  }
  CU_DRIVER_FUNCS(CU_SYM)
#undef CU_SYM
  return 0;
}

/* Query what launch geometry and is_valid_binary need about device D. */
static void cu_query(struct cu_device *d, int32_t id) {
  static const struct {
    CUdevice_attribute a;
    size_t off;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, offsetof(struct cu_device, cc_major)},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, offsetof(struct cu_device, cc_minor)},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, offsetof(struct cu_device, num_sms)},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, offsetof(struct cu_device, max_threads)},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, offsetof(struct cu_device, max_grid_x)},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, offsetof(struct cu_device, warp_size)},
  };
  for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
    int *v = (int *)((char *)d + attrs[i].off);
    CUresult r = cu.cuDeviceGetAttribute(v, attrs[i].a, d->dev);
    if (r != CUDA_SUCCESS) {
      cu_check(r, "cuDeviceGetAttribute", id, "attribute %d", (int)attrs[i].a);
      *v = 0;
    }
  }
  if (cu.cuDeviceGetName(d->name, (int)sizeof d->name, d->dev) != CUDA_SUCCESS)
    strcpy(d->name, "?");
}

/* The trace level for "no usable driver" notes: 0 (always shown) when the
 * user asked for this plugin by name in OMPEMU_PLUGINS ("cuda", not the
 * optional "cuda?" of the default list), else 1. */
static int cu_note_level(void) {
  const char *env = getenv("OMPEMU_PLUGINS");
  if (!env)
    return 1;
  const char *p = env;
  while (*p) {
    while (*p == ' ' || *p == ',')
      p++;
    size_t n = strcspn(p, ",");
    while (n && p[n - 1] == ' ')
      n--;
    static const char path_tail[] = "libomptarget.rtl.cuda.so";
    size_t t = sizeof path_tail - 1;
    if ((n == 4 && memcmp(p, "cuda", 4) == 0) ||
        (n >= t && memcmp(p + n - t, path_tail, t) == 0))
      return 0;
    p += strcspn(p, ",");
  }
  return 1;
}

/* 0 devices: one line saying so and why in a few words (REASON) at the
 * note level, where a machine without a GPU is no fault of the program; the
 * driver's own words (printf FMT) at level 2, or with the note when cuda
 * was asked for by name. */
static void cu_no_devices(const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void cu_no_devices(const char *reason, const char *fmt, ...) {
  int level = cu_note_level();
  ompemu_trace(level, CU_WHO, "no devices (%s)", reason);
  if (ompemu_trace_level() < (level == 0 ? 0 : 2))
    return;
  char details[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(details, sizeof details, fmt, ap);
  va_end(ap);
  ompemu_trace(level == 0 ? 0 : 2, CU_WHO, "%s", details);
}

/* The pool's and the staging's sizes (the Memory part of README.md). */
static void cu_read_tunables(void) {
  ompemu_env_size("LIBOMPTARGET_MEMORY_MANAGER_THRESHOLD", 8 << 10, 0,
                  (size_t)CU_POOL_MIN << (CU_POOL_CLASSES - 1),
                  &cu_tune.pool_threshold);
  ompemu_env_size("OMPEMU_CUDA_POOL_MAX", 64 << 20, 0, (size_t)1 << 40,
                  &cu_tune.pool_idle_max);
  ompemu_env_size("OMPEMU_CUDA_STAGING_THRESHOLD", 1 << 20, 0, (size_t)1 << 40,
                  &cu_tune.stage_min);
  ompemu_env_size("OMPEMU_CUDA_STAGING_CHUNK", 4 << 20, 64 << 10, 1 << 30,
                  &cu_tune.stage_chunk);
  ompemu_env_size("OMPEMU_CUDA_STAGING_MAX", 256 << 20, 0, (size_t)1 << 40,
                  &cu_tune.pinned_max);
}

static void cu_load(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    cu_no_devices("driver not found", "dlopen libcuda.so.1: %s", dlerror());
    return;
  }
  const char *missing = NULL;
  if (cu_resolve(h, &missing) != 0) {
    cu_no_devices("driver too old", "libcuda.so.1 lacks %s", missing);
    dlclose(h);
    memset(&cu, 0, sizeof cu);
    return;
  }
  cu.handle = h;
  CUresult r = cu.cuInit(0);
  if (r != CUDA_SUCCESS) {
    cu_no_devices(r == CUDA_ERROR_NO_DEVICE ? "no CUDA device"
                                            : "the driver did not start",
                  "cuInit(0) returned %s (%s)", cu_err_name(r),
                  cu_err_string(r));
    return;
  }
  if (cu.cuDriverGetVersion(&cu.version) != CUDA_SUCCESS)
    cu.version = 0;
  int n = 0;
  r = cu.cuDeviceGetCount(&n);
  if (r != CUDA_SUCCESS) {
    cu_no_devices("the driver did not start", "driver %d.%d: cuDeviceGetCount "
                  "returned %s (%s)", cu.version / 1000, cu.version % 1000 / 10,
                  cu_err_name(r), cu_err_string(r));
    return;
  }
  if (n <= 0) {
    cu_no_devices("no CUDA device", "driver %d.%d: cuDeviceGetCount returned "
                  "%d devices", cu.version / 1000, cu.version % 1000 / 10, n);
    return;
  }
  struct cu_device *devs = calloc((size_t)n, sizeof *devs);
  if (!devs) {
    ompemu_error(CU_WHO, "out of host memory for %d device records", n);
    return;
  }
  for (int i = 0; i < n; i++) {
    pthread_mutex_init(&devs[i].lock, NULL);
    pthread_mutex_init(&devs[i].fptr_lock, NULL);
    pthread_mutex_init(&devs[i].pool.lock, NULL);
    r = cu.cuDeviceGet(&devs[i].dev, i);
    if (cu_check(r, "cuDeviceGet", i, "ordinal %d", i) != 0) {
      n = i; /* keep the devices that answered */
      break;
    }
    cu_query(&devs[i], i);
    ompemu_trace(1, CU_WHO, "device %d: %s, sm_%d%d, %d SMs", i, devs[i].name,
                 devs[i].cc_major, devs[i].cc_minor, devs[i].num_sms);
  }
  cu_read_tunables();
  cu_devices = devs;
  cu_ndevices = n;
  ompemu_trace(1, CU_WHO, "driver %d.%d: %d device(s)", cu.version / 1000,
               cu.version % 1000 / 10, n);
}

int cu_ready(void) {
  pthread_once(&cu_load_once, cu_load);
  return cu_ndevices;
}

int cu_num_devices(void) { return cu_ready(); }

struct cu_device *cu_dev(int32_t id) {
  if (id < 0 || id >= cu_ready())
    return NULL;
  return &cu_devices[id];
}

int cu_loaded_devices(void) { return cu_ndevices; }

void cu_unload(void) {
  for (int i = 0; i < cu_ndevices; i++) {
    pthread_mutex_destroy(&cu_devices[i].lock);
    pthread_mutex_destroy(&cu_devices[i].fptr_lock);
    pthread_mutex_destroy(&cu_devices[i].pool.lock);
  }
  free(cu_devices);
  cu_devices = NULL;
  cu_ndevices = 0;
}
