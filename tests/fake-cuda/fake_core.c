/* CUDA driver test double, core: environment switches, cuInit, devices and
 * their attributes, primary contexts, error names, and the call log that
 * tests read (fake_cuda_log_text) or get written (FAKE_CUDA_LOG=file).
 *
 * Switches: FAKE_CUDA_INIT_FAIL=1 (cuInit returns CUDA_ERROR_NO_DEVICE),
 * FAKE_CUDA_NUM_DEVICES=N (default 1, max 8), FAKE_CUDA_CC=70 (compute
 * capability as SM number), FAKE_CUDA_SMS=N (default 4),
 * FAKE_CUDA_ALLOC_FAIL_AFTER=N (allocation N+1 onwards fails with
 * CUDA_ERROR_OUT_OF_MEMORY), FAKE_CUDA_MEM=bytes per device (default 64M),
 * FAKE_CUDA_EAGER=1 (run stream work at once instead of at synchronize),
 * FAKE_CUDA_NO_PEER=1, FAKE_CUDA_LAUNCH_FAIL=1, FAKE_CUDA_KERNEL_FAULT=NAME
 * (kernel NAME faults when it runs: the stream's synchronize returns
 * CUDA_ERROR_ILLEGAL_ADDRESS). */
#define _GNU_SOURCE
#include "fake.h"
#include "fake_cuda.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fake_state fake;
pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

static char *log_buf;
static size_t log_len, log_cap;
static FILE *log_file;
static __thread struct fake_ctx *cur_ctx;

static long env_long(const char *name, long def) {
  const char *v = getenv(name);
  if (!v || !*v)
    return def;
  return strtol(v, NULL, 0);
}

void fake_init_env(void) {
  static int done;
  if (done)
    return;
  done = 1;
  fake.init_fail = (int)env_long("FAKE_CUDA_INIT_FAIL", 0);
  fake.ndev = (int)env_long("FAKE_CUDA_NUM_DEVICES", 1);
  if (fake.ndev < 0)
    fake.ndev = 0;
  if (fake.ndev > FAKE_MAX_DEVICES)
    fake.ndev = FAKE_MAX_DEVICES;
  fake.cc = (int)env_long("FAKE_CUDA_CC", 70);
  fake.sms = (int)env_long("FAKE_CUDA_SMS", 4);
  fake.alloc_fail_after = env_long("FAKE_CUDA_ALLOC_FAIL_AFTER", -1);
  fake.mem_size = (size_t)env_long("FAKE_CUDA_MEM", 64L << 20);
  fake.eager = (int)env_long("FAKE_CUDA_EAGER", 0);
  fake.no_peer = (int)env_long("FAKE_CUDA_NO_PEER", 0);
  fake.launch_fail = (int)env_long("FAKE_CUDA_LAUNCH_FAIL", 0);
  const char *fault = getenv("FAKE_CUDA_KERNEL_FAULT");
  snprintf(fake.fault, sizeof fake.fault, "%s", fault ? fault : "");
  const char *f = getenv("FAKE_CUDA_LOG");
  if (f && *f)
    log_file = fopen(f, "a");
}

void fake_log(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n > sizeof line - 2)
    n = (int)sizeof line - 2;
  line[n++] = '\n';
  line[n] = 0;
  pthread_mutex_lock(&fake_lock);
  if (log_len + (size_t)n + 1 > log_cap) {
    size_t cap = (log_cap ? log_cap * 2 : 65536) + (size_t)n;
    char *b = realloc(log_buf, cap);
    if (b) {
      log_buf = b;
      log_cap = cap;
    }
  }
  if (log_len + (size_t)n + 1 <= log_cap) {
    memcpy(log_buf + log_len, line, (size_t)n + 1);
    log_len += (size_t)n;
  }
  if (log_file) {
    fputs(line, log_file);
    fflush(log_file);
  }
  pthread_mutex_unlock(&fake_lock);
}

FAKE_EXPORT const char *fake_cuda_log_text(void) {
  return log_buf ? log_buf : "";
}

FAKE_EXPORT void fake_cuda_log_clear(void) {
  pthread_mutex_lock(&fake_lock);
  log_len = 0;
  if (log_buf)
    log_buf[0] = 0;
  pthread_mutex_unlock(&fake_lock);
}

FAKE_EXPORT int fake_cuda_log_count(const char *needle) {
  int n = 0;
  pthread_mutex_lock(&fake_lock);
  for (const char *p = log_buf; p && (p = strstr(p, needle)); p++)
    n++;
  pthread_mutex_unlock(&fake_lock);
  return n;
}

/* ---- call counters ---- */

static struct fake_counter *counters; /* linked on first use, fake_lock */

void fake_count(struct fake_counter *c) {
  fake_gate(c->name);
  __atomic_add_fetch(&c->count, 1, __ATOMIC_RELAXED);
  if (!__atomic_load_n(&c->linked, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&fake_lock);
    if (!c->linked) {
      c->next = counters;
      counters = c;
      __atomic_store_n(&c->linked, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&fake_lock);
  }
}

FAKE_EXPORT long fake_cuda_calls_total(void) {
  long n = 0;
  pthread_mutex_lock(&fake_lock);
  for (struct fake_counter *c = counters; c; c = c->next)
    n += __atomic_load_n(&c->count, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&fake_lock);
  return n;
}

FAKE_EXPORT long fake_cuda_calls_of(const char *name) {
  long n = 0;
  pthread_mutex_lock(&fake_lock);
  for (struct fake_counter *c = counters; c; c = c->next)
    if (strcmp(c->name, name) == 0)
      n += __atomic_load_n(&c->count, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&fake_lock);
  return n;
}

FAKE_EXPORT void fake_cuda_calls_reset(void) {
  pthread_mutex_lock(&fake_lock);
  for (struct fake_counter *c = counters; c; c = c->next)
    __atomic_store_n(&c->count, 0, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&fake_lock);
}

/* ---- the gate: a call that blocks until the test lets it go ---- */

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static char gate_name[128];
static int gate_armed, gate_waiting, gate_opened;

FAKE_EXPORT void fake_cuda_gate_arm(const char *name) {
  pthread_mutex_lock(&gate_lock);
  snprintf(gate_name, sizeof gate_name, "%s", name);
  gate_waiting = gate_opened = 0;
  __atomic_store_n(&gate_armed, 1, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&gate_lock);
}

FAKE_EXPORT int fake_cuda_gate_waiting(void) {
  pthread_mutex_lock(&gate_lock);
  int w = gate_waiting;
  pthread_mutex_unlock(&gate_lock);
  return w;
}

FAKE_EXPORT void fake_cuda_gate_open(void) {
  pthread_mutex_lock(&gate_lock);
  gate_opened = 1;
  __atomic_store_n(&gate_armed, 0, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&gate_cond);
  pthread_mutex_unlock(&gate_lock);
}

void fake_gate(const char *name) {
  if (!__atomic_load_n(&gate_armed, __ATOMIC_ACQUIRE))
    return;
  pthread_mutex_lock(&gate_lock);
  if (gate_armed && strcmp(name, gate_name) == 0) {
    gate_armed = 0; /* only the first such call waits */
    gate_waiting = 1;
    while (!gate_opened)
      pthread_cond_wait(&gate_cond, &gate_lock);
    gate_waiting = 0;
  }
  pthread_mutex_unlock(&gate_lock);
}

struct fake_ctx *fake_cur_ctx(void) { return cur_ctx; }

int fake_cur_device(const char *call) {
  if (!cur_ctx) {
    fake_log("%s: no current context", call);
    return -1;
  }
  return cur_ctx->device;
}

/* ---- initialisation and devices ---- */

CUresult cuInit(unsigned int flags) {
  FAKE_CALL();
  fake_init_env();
  fake_log("cuInit flags=%u", flags);
  if (fake.init_fail)
    return CUDA_ERROR_NO_DEVICE;
  fake.inited = 1;
  for (int i = 0; i < FAKE_MAX_DEVICES; i++) {
    fake.ctx[i].magic = FAKE_CTX_MAGIC;
    fake.ctx[i].device = i;
  }
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *v) {
  FAKE_CALL();
  if (!v)
    return CUDA_ERROR_INVALID_VALUE;
  *v = 12040;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *n) {
  FAKE_CALL();
  if (!fake.inited)
    return CUDA_ERROR_NOT_INITIALIZED;
  *n = fake.ndev;
  fake_log("cuDeviceGetCount -> %d", fake.ndev);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  FAKE_CALL();
  if (!fake.inited)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= fake.ndev)
    return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  FAKE_CALL();
  if (d < 0 || d >= fake.ndev || len <= 0)
    return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)len, "Fake CUDA Device %d", d);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
  FAKE_CALL();
  if (d < 0 || d >= fake.ndev)
    return CUDA_ERROR_INVALID_DEVICE;
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = fake.cc / 10; break;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = fake.cc % 10; break;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = fake.sms; break;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 0x7fffffff; break;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
  default: *v = 0; break;
  }
  return CUDA_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer) {
  FAKE_CALL();
  if (d < 0 || d >= fake.ndev || peer < 0 || peer >= fake.ndev)
    return CUDA_ERROR_INVALID_DEVICE;
  *can = !fake.no_peer && d != peer;
  fake_log("cuDeviceCanAccessPeer dev=%d peer=%d -> %d", d, peer, *can);
  return CUDA_SUCCESS;
}

/* ---- contexts ---- */

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice d) {
  FAKE_CALL();
  if (!fake.inited)
    return CUDA_ERROR_NOT_INITIALIZED;
  if (d < 0 || d >= fake.ndev)
    return CUDA_ERROR_INVALID_DEVICE;
  pthread_mutex_lock(&fake_lock);
  int refs = ++fake.ctx[d].refs;
  pthread_mutex_unlock(&fake_lock);
  *pctx = (CUcontext)&fake.ctx[d];
  fake_log("cuDevicePrimaryCtxRetain dev=%d refs=%d", d, refs);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice d) {
  FAKE_CALL();
  if (d < 0 || d >= fake.ndev)
    return CUDA_ERROR_INVALID_CONTEXT;
  pthread_mutex_lock(&fake_lock);
  int held = fake.ctx[d].refs > 0;
  if (held)
    fake.ctx[d].refs--;
  pthread_mutex_unlock(&fake_lock);
  if (!held)
    return CUDA_ERROR_INVALID_CONTEXT;
  fake_log("cuDevicePrimaryCtxRelease dev=%d", d);
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext c) {
  FAKE_CALL();
  struct fake_ctx *x = (struct fake_ctx *)c;
  if (x && (x->magic != FAKE_CTX_MAGIC || x->refs <= 0))
    return CUDA_ERROR_INVALID_CONTEXT;
  cur_ctx = x;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *c) {
  FAKE_CALL();
  *c = (CUcontext)cur_ctx;
  return CUDA_SUCCESS;
}

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
  FAKE_CALL();
  struct fake_ctx *p = (struct fake_ctx *)peer;
  int d = fake_cur_device("cuCtxEnablePeerAccess");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!p || p->magic != FAKE_CTX_MAGIC || flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (fake.no_peer || p->device == d)
    return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  if (cur_ctx->peer[p->device])
    return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  cur_ctx->peer[p->device] = 1;
  fake_log("cuCtxEnablePeerAccess dev=%d peer=%d", d, p->device);
  return CUDA_SUCCESS;
}

/* ---- errors ---- */

static const struct {
  CUresult r;
  const char *name, *text;
} errs[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_FILE_NOT_FOUND, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these two devices"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
};

CUresult cuGetErrorName(CUresult r, const char **s) {
  FAKE_CALL();
  for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++)
    if (errs[i].r == r) {
      *s = errs[i].name;
      return CUDA_SUCCESS;
    }
  *s = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
  FAKE_CALL();
  for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++)
    if (errs[i].r == r) {
      *s = errs[i].text;
      return CUDA_SUCCESS;
    }
  *s = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}
