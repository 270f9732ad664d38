/* HSA test double: code object readers, executables and their symbols, and
 * the device-side __kmpc_target_translate_fptr.  A code object is a host
 * shared object with e_machine patched to EM_AMDGPU and e_flags to a mach;
 * loading checks both against the agent, writes a copy with e_machine
 * restored to a temporary file and dlopens it (each load its own copy, so
 * globals are per agent as on a GPU). */
#define _GNU_SOURCE
#include "fake_internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXEC_MAGIC 0x45584543u


struct fake_sym {
  struct fake_sym *next;
  int is_kernel;
  uintptr_t addr;  /* variable address, or the kd for a kernel */
  size_t size;
  struct fake_agent *agent;
};

struct fake_exec {
  uint32_t magic;
  struct fake_exec *next;
  int frozen;
  void *dl;
  struct fake_agent *agent;
  struct fake_sym *syms;
  long range; /* allocation record of the loaded segments */
};

struct fake_reader {
  void *bytes;
  size_t size;
};

__thread void *fake_running_exec;
static struct fake_exec *execs; /* protected by fake_lock */

hsa_status_t hsa_code_object_reader_create_from_memory(
    const void *co, size_t size, hsa_code_object_reader_t *out) {
  struct fake_reader *r = NULL;
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (!co || !size || !out)
    st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
  else if (!(r = calloc(1, sizeof *r)) || !(r->bytes = malloc(size))) {
    free(r);
    r = NULL;
    st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  } else {
    memcpy(r->bytes, co, size);
    r->size = size;
    out->handle = (uint64_t)(uintptr_t)r;
  }
  fake_log("hsa_code_object_reader_create_from_memory(0x%016lx, %zu) = 0x%x",
           (unsigned long)(uintptr_t)co, size, st);
  return st;
}

hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t rd) {
  struct fake_reader *r = (struct fake_reader *)(uintptr_t)rd.handle;
  fake_log("hsa_code_object_reader_destroy() = 0x0");
  if (r)
    free(r->bytes);
  free(r);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t hsa_executable_create_alt(hsa_profile_t profile,
                                       hsa_default_float_rounding_mode_t rm,
                                       const char *options,
                                       hsa_executable_t *out) {
  struct fake_exec *e = calloc(1, sizeof *e);
  if (!e)
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  e->magic = EXEC_MAGIC;
  e->range = -1;
  pthread_mutex_lock(&fake_lock);
  e->next = execs;
  execs = e;
  pthread_mutex_unlock(&fake_lock);
  out->handle = (uint64_t)(uintptr_t)e;
  fake_log("hsa_executable_create_alt(profile=%d) = 0x0 executable=0x%016lx",
           (int)profile, (unsigned long)out->handle);
  return HSA_STATUS_SUCCESS;
}

static struct fake_exec *exec_of(hsa_executable_t x) {
  struct fake_exec *e = (struct fake_exec *)(uintptr_t)x.handle;
  return e && e->magic == EXEC_MAGIC ? e : NULL;
}

/* dlopen a copy of code object R with e_machine restored; NULL + WHY. */
static void *open_copy(const struct fake_reader *r, const char **why) {
  char path[] = "/tmp/fake-hsa-co-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    *why = "cannot create a temporary file";
    return NULL;
  }
  Elf64_Ehdr eh;
  memcpy(&eh, r->bytes, sizeof eh);
  eh.e_machine = EM_X86_64;
  eh.e_flags = 0;
  int ok = write(fd, &eh, sizeof eh) == (ssize_t)sizeof eh &&
           write(fd, (char *)r->bytes + sizeof eh, r->size - sizeof eh) ==
               (ssize_t)(r->size - sizeof eh);
  close(fd);
  void *dl = ok ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
  if (!dl) {
    static __thread char buf[512];
    snprintf(buf, sizeof buf, "dlopen: %s", ok ? dlerror() : "write failed");
    *why = buf;
  }
  unlink(path);
  return dl;
}

struct span {
  uintptr_t base, lo, hi;
};

static int span_cb(struct dl_phdr_info *info, size_t size, void *data) {
  struct span *sp = data;
  if (info->dlpi_addr != sp->base)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t lo = sp->base + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (!sp->lo || lo < sp->lo)
      sp->lo = lo;
    if (hi > sp->hi)
      sp->hi = hi;
  }
  return 1;
}

/* Make E's loaded segments count as its agent's memory, so copies to and
 * from its globals pass the double's copy rules. */
static void register_segments(struct fake_exec *e) {
  struct link_map *lm = NULL;
  if (dlinfo(e->dl, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
    return;
  struct span sp = {.base = lm->l_addr};
  dl_iterate_phdr(span_cb, &sp);
  if (sp.hi > sp.lo) {
    pthread_mutex_lock(&fake_lock);
    e->range = fake_code_range_add(e->agent, sp.lo, sp.hi);
    pthread_mutex_unlock(&fake_lock);
  }
}

hsa_status_t hsa_executable_load_agent_code_object(
    hsa_executable_t x, hsa_agent_t agent, hsa_code_object_reader_t rd,
    const char *options, hsa_loaded_code_object_t *loaded) {
  struct fake_exec *e = exec_of(x);
  struct fake_agent *a = fake_agent_of(agent);
  struct fake_reader *r = (struct fake_reader *)(uintptr_t)rd.handle;
  const char *why = NULL;
  hsa_status_t st = HSA_STATUS_SUCCESS;
  Elf64_Ehdr eh;
  /* FAKE_HSA_LOAD_DELAY_MS: a slow load, for tests of what may run
   * meanwhile. */
  const char *delay = getenv("FAKE_HSA_LOAD_DELAY_MS");
  if (delay && *delay) {
    long ms = strtol(delay, NULL, 10);
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    nanosleep(&ts, NULL);
  }
  if (!e) {
    st = HSA_STATUS_ERROR_INVALID_EXECUTABLE;
    why = "bad executable";
  } else if (e->frozen) {
    st = HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
    why = "frozen";
  } else if (!a || !a->is_gpu) {
    st = HSA_STATUS_ERROR_INVALID_AGENT;
    why = "not a GPU agent";
  } else if (!r || r->size < sizeof eh) {
    st = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    why = "too small";
  } else {
    memcpy(&eh, r->bytes, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_machine != 224) {
      st = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
      why = "not an AMDGPU ELF";
    } else if (eh.e_ident[EI_OSABI] == 64 /* ELFOSABI_AMDGPU_HSA */) {
      st = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
      why = "a real AMDGPU code object: the double only runs patched host "
            "shared objects";
    } else if ((eh.e_flags & 0xff) != a->mach) {
      st = HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
      why = "code object mach differs from the agent's";
    } else if (e->dl) {
      st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
      why = "the double loads one code object per executable";
    } else if (!(e->dl = open_copy(r, &why))) {
      st = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    } else {
      e->agent = a;
      register_segments(e);
    }
  }
  fake_log("hsa_executable_load_agent_code_object(executable=0x%016lx, %s) "
           "= 0x%x%s%s", (unsigned long)x.handle, fake_agent_name(a), st,
           why ? " " : "", why ? why : "");
  if (loaded && st == HSA_STATUS_SUCCESS)
    loaded->handle = (uint64_t)(uintptr_t)e->dl;
  return st;
}

hsa_status_t hsa_executable_freeze(hsa_executable_t x, const char *options) {
  struct fake_exec *e = exec_of(x);
  hsa_status_t st = !e ? HSA_STATUS_ERROR_INVALID_EXECUTABLE
                   : e->frozen ? HSA_STATUS_ERROR_FROZEN_EXECUTABLE
                               : HSA_STATUS_SUCCESS;
  if (st == HSA_STATUS_SUCCESS)
    e->frozen = 1;
  fake_log("hsa_executable_freeze(0x%016lx) = 0x%x", (unsigned long)x.handle,
           st);
  return st;
}

static void exec_free(struct fake_exec *e) {
  while (e->syms) {
    struct fake_sym *s = e->syms;
    e->syms = s->next;
    if (s->is_kernel)
      free((void *)s->addr);
    free(s);
  }
  if (e->dl)
    dlclose(e->dl);
  fake_code_range_del(e->range);
  e->magic = 0;
  free(e);
}

hsa_status_t hsa_executable_destroy(hsa_executable_t x) {
  struct fake_exec *e = exec_of(x);
  fake_log("hsa_executable_destroy(0x%016lx) = 0x%x", (unsigned long)x.handle,
           e ? 0 : HSA_STATUS_ERROR_INVALID_EXECUTABLE);
  if (!e)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  pthread_mutex_lock(&fake_lock);
  for (struct fake_exec **p = &execs; *p; p = &(*p)->next)
    if (*p == e) {
      *p = e->next;
      break;
    }
  fake_code_range_del(e->range);
  e->range = -1;
  pthread_mutex_unlock(&fake_lock);
  exec_free(e);
  return HSA_STATUS_SUCCESS;
}

/* Executables still alive at the last hsa_shut_down (fake_lock held). */
void fake_exec_fini(void) {
  while (execs) {
    struct fake_exec *e = execs;
    execs = e->next;
    fake_log("hsa_shut_down: executable 0x%016lx destroyed",
             (unsigned long)(uintptr_t)e);
    exec_free(e);
  }
}

hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t x,
                                               const char *name,
                                               const hsa_agent_t *agent,
                                               hsa_executable_symbol_t *out) {
  struct fake_exec *e = exec_of(x);
  hsa_status_t st = HSA_STATUS_SUCCESS;
  struct fake_sym *s = NULL;
  size_t len = name ? strlen(name) : 0;
  if (!e || !e->frozen || !e->dl)
    st = HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  else if (!agent || fake_agent_of(*agent) != e->agent)
    st = HSA_STATUS_ERROR_INVALID_AGENT;
  else if (!(s = calloc(1, sizeof *s)))
    st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  else if (len > 3 && strcmp(name + len - 3, ".kd") == 0) {
    char fn[256];
    snprintf(fn, sizeof fn, "%.*s", (int)(len - 3), name);
    void *f = dlsym(e->dl, fn);
    struct fake_kd *kd = f ? calloc(1, sizeof *kd) : NULL;
    if (!kd)
      st = HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
    else {
      kd->magic = FAKE_KD_MAGIC;
      kd->fn = (void (*)(void))f;
      kd->exec = e;
      snprintf(kd->name, sizeof kd->name, "%s", fn);
      s->is_kernel = 1;
      s->addr = (uintptr_t)kd;
    }
  } else {
    void *v = dlsym(e->dl, name);
    const ElfW(Sym) *sym = NULL;
    Dl_info info;
    if (!v)
      st = HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
    else {
      s->addr = (uintptr_t)v;
      if (dladdr1(v, &info, (void **)&sym, RTLD_DL_SYMENT) && sym)
        s->size = sym->st_size;
    }
  }
  if (st == HSA_STATUS_SUCCESS) {
    s->agent = e->agent;
    s->next = e->syms;
    e->syms = s;
    out->handle = (uint64_t)(uintptr_t)s;
  } else {
    free(s);
  }
  fake_log("hsa_executable_get_symbol_by_name(0x%016lx, %s) = 0x%x",
           (unsigned long)x.handle, name ? name : "(null)", st);
  return st;
}

hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t sym,
                                            hsa_executable_symbol_info_t attr,
                                            void *value) {
  struct fake_sym *s = (struct fake_sym *)(uintptr_t)sym.handle;
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (!s)
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  switch ((int)attr) {
  case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
    *(hsa_symbol_kind_t *)value =
        s->is_kernel ? HSA_SYMBOL_KIND_KERNEL : HSA_SYMBOL_KIND_VARIABLE;
    break;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
    if (s->is_kernel)
      st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
    else
      *(uint64_t *)value = s->addr;
    break;
  case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
    *(uint32_t *)value = (uint32_t)s->size;
    break;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
    if (!s->is_kernel)
      st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
    else
      *(uint64_t *)value = s->addr;
    break;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
    if (!s->is_kernel)
      st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
    else
      *(uint32_t *)value = 0;
    break;
  default:
    st = HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  fake_log("hsa_executable_symbol_get_info(0x%016lx, %d) = 0x%x",
           (unsigned long)sym.handle, (int)attr, st);
  return st;
}

struct fptr_row {
  int64_t host_ptr, tgt_ptr;
};

/* The executable whose loaded segments contain code address PC, or NULL. */
static struct fake_exec *exec_at(uintptr_t pc) {
  struct fake_exec *r = NULL;
  pthread_mutex_lock(&fake_lock);
  for (struct fake_exec *e = execs; e && !r; e = e->next)
    if (e->range >= 0 && (size_t)e->range < fake.nallocs &&
        pc >= fake.allocs[e->range].ptr &&
        pc < fake.allocs[e->range].ptr + fake.allocs[e->range].size)
      r = e;
  pthread_mutex_unlock(&fake_lock);
  return r;
}

/* Device runtime of the double: translate host function pointer FN through
 * the fptr table of the module that calls it (found by the return address,
 * so threads a kernel starts translate too; the running kernel's module
 * otherwise). */
void *__kmpc_target_translate_fptr(void *fn) {
  struct fake_exec *e = exec_at((uintptr_t)__builtin_return_address(0));
  if (!e)
    e = fake_running_exec;
  if (!e || !e->dl)
    return fn;
  struct fptr_row **pp = dlsym(e->dl, "__omp_offloading_fptr_map_p");
  uint64_t *psz = dlsym(e->dl, "__omp_offloading_fptr_map_size");
  if (!pp || !psz || !*pp)
    return fn;
  size_t lo = 0, hi = *psz;
  int64_t key = (int64_t)(intptr_t)fn;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if ((*pp)[mid].host_ptr == key) {
      void *r = (void *)(intptr_t)(*pp)[mid].tgt_ptr;
      fake_log("translate_fptr(executable=0x%016lx, table=0x%016lx, %lu "
               "entries, 0x%016lx) = 0x%016lx", (unsigned long)(uintptr_t)e,
               (unsigned long)(uintptr_t)*pp, (unsigned long)*psz,
               (unsigned long)(uintptr_t)fn, (unsigned long)(uintptr_t)r);
      return r;
    }
    if ((*pp)[mid].host_ptr < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  fake_log("translate_fptr(executable=0x%016lx, 0x%016lx) = unchanged",
           (unsigned long)(uintptr_t)e, (unsigned long)(uintptr_t)fn);
  return fn;
}
