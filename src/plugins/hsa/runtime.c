/* Loading the HSA runtime at run time: dlopen of libhsa-runtime64.so.1 (or
 * OMPEMU_HSA_LIBRARY), the function table, hsa_init, and the plugin entry
 * points that concern the whole plugin (device count, device init,
 * requires).  No runtime, a missing symbol, a failing hsa_init or no GPU
 * agent all mean 0 devices and a trace note ("hsa: no devices (REASON)",
 * the details at level 2), never an error or a crash. */
#include "config.h"
#include "hsa_plugin.h"
#include "envvar.h"
#include "trace.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ompemu/plugin.h>

#define HSA_DEFAULT_LIB "libhsa-runtime64.so.1"

struct hsa_state hsa_st = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* 0 devices: one trace line saying so and why in a few words (REASON) at
 * level 1, where a machine without an AMD GPU is no fault of the program;
 * the runtime's own words (printf FMT) at level 2. */
static void no_devices(const char *reason, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void no_devices(const char *reason, const char *fmt, ...) {
  ompemu_trace(1, HSA_WHO, "no devices (%s)", reason);
  if (!OMPEMU_TRACE_ON(2))
    return;
  char details[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(details, sizeof details, fmt, ap);
  va_end(ap);
  ompemu_trace(2, HSA_WHO, "%s", details);
}

/* Resolve every function of the table from LIB; returns 0 when all required
 * ones are there (optional AMD ones decide hsa_st.has_amd). */
static int resolve(void *lib, const char *libname) {
#define RESOLVE_REQ(n)                                                         \
  H.n = (__typeof__(n) *)dlsym(lib, #n);                                       \
  if (!H.n) {                                                                  \
    no_devices("HSA runtime too old", "%s lacks %s", libname, #n);             \
    return -1;                                                                 \
  }
  HSA_REQUIRED_FNS(RESOLVE_REQ)
#undef RESOLVE_REQ
  const char *missing = NULL;
#define RESOLVE_OPT(n)                                                         \
  H.n = (__typeof__(n) *)dlsym(lib, #n);                                       \
  if (!H.n && !missing)                                                        \
    missing = #n;
  HSA_AMD_FNS(RESOLVE_OPT)
#undef RESOLVE_OPT
  int amd = missing == NULL;
  if (missing)
    ompemu_trace(1, HSA_WHO, "%s lacks %s: using core HSA regions and "
                 "hsa_memory_copy", libname, missing);
  int want = 1;
  ompemu_env_bool("OMPEMU_HSA_AMD_EXT", 1, &want);
  if (amd && !want)
    ompemu_trace(1, HSA_WHO, "OMPEMU_HSA_AMD_EXT=0: AMD memory pools and "
                 "async copies disabled");
  hsa_st.has_amd = amd && want;
  return 0;
}

/* Undo a partial or complete initialisation (caller holds hsa_st.lock). */
static void teardown_locked(void) {
  for (int i = 0; i < hsa_st.ndev; i++) {
    hsa_agent_fini(&hsa_st.dev[i]);
    pthread_mutex_destroy(&hsa_st.dev[i].lock);
    pthread_mutex_destroy(&hsa_st.dev[i].fptr_lock);
  }
  free(hsa_st.dev);
  hsa_st.dev = NULL;
  hsa_st.ndev = 0;
  hsa_status_t st;
  if (hsa_st.usable && (st = H.hsa_shut_down()) != HSA_STATUS_SUCCESS)
    hsa_fail("hsa_shut_down", st, "releasing the HSA runtime");
  hsa_st.usable = 0;
  if (hsa_st.lib)
    dlclose(hsa_st.lib);
  hsa_st.lib = NULL;
  memset(&hsa_st.api, 0, sizeof hsa_st.api);
}

/* Load and initialise the runtime once.  Returns 0 when devices may exist. */
int hsa_rt_init(void) {
  pthread_mutex_lock(&hsa_st.lock);
  if (hsa_st.tried) {
    int ok = hsa_st.usable ? 0 : -1;
    pthread_mutex_unlock(&hsa_st.lock);
    return ok;
  }
  hsa_st.tried = 1;
  const char *name = getenv("OMPEMU_HSA_LIBRARY");
  if (!name || !*name)
    name = HSA_DEFAULT_LIB;
  hsa_st.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!hsa_st.lib) {
    const char *why = dlerror();
    no_devices("HSA runtime not found", "dlopen %s: %s", name,
               why ? why : "failed");
    goto fail;
  }
  if (resolve(hsa_st.lib, name) != 0)
    goto fail;
  hsa_status_t st = H.hsa_init();
  if (st != HSA_STATUS_SUCCESS) {
    /* ROCm's runtime fails with HSA_STATUS_ERROR_OUT_OF_RESOURCES when the
     * amdgpu kernel driver is not there: say that, not the status. */
    no_devices(access("/dev/kfd", F_OK) != 0
                   ? "no amdgpu kernel driver: /dev/kfd is absent"
                   : "the HSA runtime did not start",
               "hsa_init() returned 0x%x (%s)", (unsigned)st,
               hsa_status_text(st));
    goto fail;
  }
  hsa_st.usable = 1;
  if (hsa_agents_discover() != 0)
    goto fail;
  ompemu_trace(1, HSA_WHO, "%s loaded: %d GPU agent%s%s", name, hsa_st.ndev,
               hsa_st.ndev == 1 ? "" : "s",
               hsa_st.has_amd ? "" : " (core regions, no AMD extension)");
  pthread_mutex_unlock(&hsa_st.lock);
  return 0;
fail:
  teardown_locked();
  pthread_mutex_unlock(&hsa_st.lock);
  return -1;
}

/* Runs when the plugin is unloaded (dlclose or process exit): release the
 * agents' queues, executables and the runtime.  Calls arriving afterwards
 * find 0 devices. */
__attribute__((destructor)) static void hsa_rt_fini(void) {
  pthread_mutex_lock(&hsa_st.lock);
  teardown_locked();
  pthread_mutex_unlock(&hsa_st.lock);
}

/* Device ID, or NULL with an error naming WHAT when it does not exist. */
struct hsa_device *hsa_dev_get(int32_t id, const char *what) {
  if (id < 0 || id >= hsa_st.ndev || !hsa_st.dev) {
    ompemu_error(HSA_WHO, "%s: no hsa device %d (%d devices)", what, id,
                 hsa_st.ndev);
    return NULL;
  }
  return &hsa_st.dev[id];
}

/* Device ID, initialised on first use (hsa_agent_init takes no lock while
 * it calls HSA; a thread that loses the race gives its queue back). */
struct hsa_device *hsa_dev_ready(int32_t id, const char *what) {
  struct hsa_device *d = hsa_dev_get(id, what);
  if (!d)
    return NULL;
  if (__atomic_load_n(&d->initialized, __ATOMIC_ACQUIRE))
    return d;
  return hsa_agent_init(d) == 0 ? d : NULL;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_number_of_devices(void) {
  if (hsa_rt_init() != 0)
    return 0;
  return hsa_st.ndev;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_init_device(int32_t id) {
  if (hsa_rt_init() != 0)
    return OFFLOAD_FAIL;
  return hsa_dev_ready(id, "init_device") ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}

OMPEMU_HSA_EXPORT int64_t __tgt_rtl_init_requires(int64_t flags) {
  if (flags & OMP_REQ_UNIFIED_SHARED_MEMORY)
    ompemu_trace(1, HSA_WHO, "requires unified_shared_memory: not supported "
                 "by the hsa plugin, maps still copy");
  return flags;
}

OMPEMU_HSA_EXPORT void __tgt_rtl_print_device_info(int32_t id) {
  struct hsa_device *d = hsa_dev_get(id, "print_device_info");
  if (!d)
    return;
  ompemu_raw("    hsa device %d: agent 0x%016lx %s (mach 0x%02x %s), %u "
             "compute units, workgroup max %u, %s\n",
             id, (unsigned long)d->agent.handle, d->name, d->mach,
             hsa_mach_name(d->mach), d->compute_units, d->wg_max,
             hsa_st.has_amd ? "AMD memory pools" : "core regions");
}
