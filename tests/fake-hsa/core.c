/* HSA test double: hsa_init / hsa_shut_down, the call log, status strings
 * and the agents (one CPU agent, then the GPU agents of FAKE_HSA_GPUS). */
#define _GNU_SOURCE
#include "fake_internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fake_state fake;
pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char *log_buf;
static size_t log_len, log_cap;

void fake_log(const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line - 1, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n > sizeof line - 2)
    n = sizeof line - 2;
  line[n++] = '\n';
  line[n] = 0;
  pthread_mutex_lock(&log_lock);
  if (log_len + (size_t)n + 1 > log_cap) {
    size_t cap = (log_cap ? 2 * log_cap : 65536) + (size_t)n;
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
  const char *f = getenv("FAKE_HSA_LOG");
  if (f && *f) {
    FILE *o = fopen(f, "a");
    if (o) {
      fputs(line, o);
      fclose(o);
    }
  }
  pthread_mutex_unlock(&log_lock);
}

/* A copy of the double that is dlclosed takes its log with it. */
__attribute__((destructor)) static void log_free(void) {
  free(log_buf);
  log_buf = NULL;
  log_len = log_cap = 0;
}

const char *fake_hsa_log_text(void) { return log_buf ? log_buf : ""; }

void fake_hsa_log_clear(void) {
  pthread_mutex_lock(&log_lock);
  log_len = 0;
  if (log_buf)
    log_buf[0] = 0;
  pthread_mutex_unlock(&log_lock);
}

int fake_hsa_log_count(const char *sub) {
  int n = 0;
  pthread_mutex_lock(&log_lock);
  for (const char *l = log_buf; l && *l;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    if (memmem(l, len, sub, strlen(sub)))
      n++;
    l += len + (e ? 1 : 0);
  }
  pthread_mutex_unlock(&log_lock);
  return n;
}

const char *fake_hsa_log_line(const char *sub, char *buf, size_t size) {
  const char *r = NULL;
  pthread_mutex_lock(&log_lock);
  for (const char *l = log_buf; l && *l && !r;) {
    const char *e = strchr(l, '\n');
    size_t len = e ? (size_t)(e - l) : strlen(l);
    if (memmem(l, len, sub, strlen(sub))) {
      snprintf(buf, size, "%.*s", (int)len, l);
      r = buf;
    }
    l += len + (e ? 1 : 0);
  }
  pthread_mutex_unlock(&log_lock);
  return r;
}

int fake_hsa_refcount(void) { return fake.refcount; }
int fake_ready(void) { return fake.refcount > 0; }

static const struct {
  const char *name;
  uint32_t mach;
} machs[] = {{"gfx900", 0x2c}, {"gfx906", 0x2f}, {"gfx908", 0x30},
             {"gfx90a", 0x3f}, {"gfx1030", 0x36}};

uint32_t fake_mach_of(const char *name) {
  for (size_t i = 0; i < sizeof machs / sizeof machs[0]; i++)
    if (strcmp(machs[i].name, name) == 0)
      return machs[i].mach;
  return 0;
}

struct fake_agent *fake_agent_of(hsa_agent_t a) {
  for (int i = 0; i < fake.nagents; i++)
    if (a.handle == (uint64_t)(uintptr_t)&fake.agents[i])
      return &fake.agents[i];
  return NULL;
}

const char *fake_agent_name(const struct fake_agent *a) {
  static __thread char buf[80];
  if (!a)
    return "bad-agent";
  if (!a->is_gpu)
    return "cpu";
  snprintf(buf, sizeof buf, "%s#%d", a->name, a->index);
  return buf;
}

static long long env_ll(const char *name, long long def) {
  const char *v = getenv(name);
  return v && *v ? strtoll(v, NULL, 0) : def;
}

/* Make this library's symbols (__kmpc_target_translate_fptr) visible to the
 * code objects it dlopens, even when it was itself dlopened RTLD_LOCAL. */
static void promote_self(void) {
  Dl_info info;
  if (dladdr((void *)&fake_hsa_log_text, &info) && info.dli_fname)
    fake.self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

hsa_status_t hsa_init(void) {
  pthread_mutex_lock(&fake_lock);
  if (fake.refcount > 0) {
    fake.refcount++;
    pthread_mutex_unlock(&fake_lock);
    fake_log("hsa_init() = 0x0 refcount=%d", fake.refcount);
    return HSA_STATUS_SUCCESS;
  }
  if (env_ll("FAKE_HSA_INIT_FAIL", 0)) {
    pthread_mutex_unlock(&fake_lock);
    fake_log("hsa_init() = 0x%x (FAKE_HSA_INIT_FAIL)",
             HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  memset(fake.agents, 0, sizeof fake.agents);
  fake.nagents = 1;
  strcpy(fake.agents[0].name, "FakeCPU");
  fake.agents[0].index = -1;
  if (!env_ll("FAKE_HSA_NO_GPU", 0)) {
    const char *g = getenv("FAKE_HSA_GPUS");
    char list[256];
    snprintf(list, sizeof list, "%s", g && *g ? g : "gfx906");
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save);
         t && fake.nagents < FAKE_MAX_AGENTS; t = strtok_r(NULL, ",", &save)) {
      struct fake_agent *a = &fake.agents[fake.nagents];
      a->is_gpu = 1;
      a->index = fake.nagents - 1;
      snprintf(a->name, sizeof a->name, "%s", t);
      a->mach = fake_mach_of(t);
      fake.nagents++;
    }
  }
  fake.alloc_fail_after = env_ll("FAKE_HSA_ALLOC_FAIL_AFTER", -1);
  fake.copy_fail_after = env_ll("FAKE_HSA_COPY_FAIL_AFTER", -1);
  fake.copies_done = 0;
  fake.queue_fail = (int)env_ll("FAKE_HSA_QUEUE_FAIL", 0);
  fake.allocs_done = 0;
  fake_mem_init(env_ll("FAKE_HSA_MEM_SIZE", 256LL << 20));
  promote_self();
  fake.refcount = 1;
  pthread_mutex_unlock(&fake_lock);
  fake_log("hsa_init() = 0x0 agents=%d", fake.nagents);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_shut_down(void) {
  pthread_mutex_lock(&fake_lock);
  if (fake.refcount == 0) {
    pthread_mutex_unlock(&fake_lock);
    fake_log("hsa_shut_down() = 0x%x", HSA_STATUS_ERROR_NOT_INITIALIZED);
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  }
  if (--fake.refcount == 0) {
    fake_exec_fini();
    fake_mem_fini();
    fake.nagents = 0;
    if (fake.self)
      dlclose(fake.self);
    fake.self = NULL;
  }
  int rc = fake.refcount;
  pthread_mutex_unlock(&fake_lock);
  fake_log("hsa_shut_down() = 0x0 refcount=%d", rc);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_status_string(hsa_status_t st, const char **s) {
  static const struct {
    hsa_status_t st;
    const char *s;
  } t[] = {
      {HSA_STATUS_SUCCESS, "HSA_STATUS_SUCCESS: fake success"},
      {HSA_STATUS_ERROR_INVALID_ARGUMENT, "HSA_STATUS_ERROR_INVALID_ARGUMENT: fake invalid argument"},
      {HSA_STATUS_ERROR_INVALID_AGENT, "HSA_STATUS_ERROR_INVALID_AGENT: fake invalid agent"},
      {HSA_STATUS_ERROR_OUT_OF_RESOURCES, "HSA_STATUS_ERROR_OUT_OF_RESOURCES: fake out of resources"},
      {HSA_STATUS_ERROR_NOT_INITIALIZED, "HSA_STATUS_ERROR_NOT_INITIALIZED: fake runtime not initialized"},
      {HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: fake incompatible arguments"},
      {HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "HSA_STATUS_ERROR_INVALID_CODE_OBJECT: fake invalid code object"},
      {HSA_STATUS_ERROR_INVALID_EXECUTABLE, "HSA_STATUS_ERROR_INVALID_EXECUTABLE: fake invalid executable"},
      {HSA_STATUS_ERROR_INVALID_SYMBOL_NAME, "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: fake symbol not found"},
      {HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: fake bad packet"},
      {HSA_STATUS_ERROR_FROZEN_EXECUTABLE, "HSA_STATUS_ERROR_FROZEN_EXECUTABLE: fake executable frozen"},
      {HSA_STATUS_ERROR_INVALID_QUEUE_CREATION, "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: fake bad queue size"},
      {HSA_STATUS_ERROR_INVALID_ALLOCATION, "HSA_STATUS_ERROR_INVALID_ALLOCATION: fake bad allocation"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (t[i].st == st) {
      *s = t[i].s;
      return HSA_STATUS_SUCCESS;
    }
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

hsa_status_t hsa_iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void *),
                                void *data) {
  if (!fake_ready()) {
    fake_log("hsa_iterate_agents() = 0x%x", HSA_STATUS_ERROR_NOT_INITIALIZED);
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  }
  fake_log("hsa_iterate_agents() agents=%d", fake.nagents);
  for (int i = 0; i < fake.nagents; i++) {
    hsa_agent_t a = {(uint64_t)(uintptr_t)&fake.agents[i]};
    hsa_status_t st = cb(a, data);
    if (st != HSA_STATUS_SUCCESS)
      return st;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attr,
                                void *value) {
  struct fake_agent *a = fake_agent_of(agent);
  if (!a) {
    fake_log("hsa_agent_get_info(agent=0x%lx, %d) = 0x%x",
             (unsigned long)agent.handle, (int)attr,
             HSA_STATUS_ERROR_INVALID_AGENT);
    return HSA_STATUS_ERROR_INVALID_AGENT;
  }
  switch ((int)attr) {
  case HSA_AGENT_INFO_NAME:
    memset(value, 0, 64);
    strcpy(value, a->name);
    break;
  case HSA_AGENT_INFO_DEVICE:
    *(hsa_device_type_t *)value =
        a->is_gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
    break;
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE:
    *(uint32_t *)value = a->is_gpu ? 1024 : 0;
    break;
  case HSA_AGENT_INFO_WAVEFRONT_SIZE:
    *(uint32_t *)value = 64;
    break;
  case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE:
    *(uint32_t *)value = 1024;
    break;
  case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT:
    *(uint32_t *)value = a->is_gpu ? 60 : 2;
    break;
  default:
    fake_log("hsa_agent_get_info(%s, %d) = 0x%x", fake_agent_name(a),
             (int)attr, HSA_STATUS_ERROR_INVALID_ARGUMENT);
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  fake_log("hsa_agent_get_info(%s, %d) = 0x0", fake_agent_name(a), (int)attr);
  return HSA_STATUS_SUCCESS;
}
