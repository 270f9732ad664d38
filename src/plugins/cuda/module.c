/* Device images: is_valid_binary (an EM_CUDA ELF whose SM architecture a
 * device can run, or PTX text), load_binary (cuModuleLoadDataEx, then the
 * device entries table BY NAME in host entry order: kernels through
 * cuModuleGetFunction, globals through cuModuleGetGlobal) and the fptr
 * table (set_function_ptr_map, docs/indirect-functions.md).
 *
 * SM decoding (values cuobjdump shows for nvcc's cubins): cubins with ELF
 * ABI version < 8 in e_ident hold the SM in e_flags bits 0-7 (sm_70:
 * 0x460546, low byte 0x46 = 70; bits 16-23 repeat the PTX/virtual SM).
 * Cubins with ELF ABI version 8 (sm_100 and later; CUDA 13's ptxas writes
 * it for every SM, e.g. sm_80: 0x6005004) hold it in bits 8-15
 * (sm_100: 0x6006402, byte 1 = 0x64 = 100).  SM s means compute capability
 * s/10 . s%10; a device of the same major and an equal or higher minor runs
 * it (NVIDIA's binary compatibility rule). */
#include "config.h"
#include "cuda_rtl.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif
#define CU_ELF_ABI_V2 8 /* e_ident[EI_ABIVERSION] of sm_100+ cubins */

int cu_elf_sm(const unsigned char *p, size_t size) {
  if (size < sizeof(Elf64_Ehdr))
    return 0;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
  uint32_t f = eh->e_flags;
  int sm = (eh->e_ident[EI_ABIVERSION] >= CU_ELF_ABI_V2) ? (int)((f >> 8) & 0xff)
                                                         : (int)(f & 0xff);
  return sm;
}

static size_t image_size(const __tgt_device_image *img) {
  return (size_t)((const char *)img->ImageEnd - (const char *)img->ImageStart);
}

/* 1 if IMG is PTX text: "//" or ".version" after leading white space. */
static int is_ptx(const char *p, size_t n) {
  size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
    i++;
  return (n - i >= 2 && p[i] == '/' && p[i + 1] == '/') ||
         (n - i >= 8 && memcmp(p + i, ".version", 8) == 0);
}

/* 1 if device D can run code built for SM. */
static int sm_runs_on(int sm, const struct cu_device *d) {
  return sm / 10 == d->cc_major && sm % 10 <= d->cc_minor;
}

/* Whether IMG suits device ID (-1: any device); when not, *WHY says why. */
static int image_ok(const __tgt_device_image *img, int32_t id, char *why,
                    size_t whylen) {
  const unsigned char *p = img->ImageStart;
  size_t n = image_size(img);
  if (!p || n == 0) {
    snprintf(why, whylen, "empty image");
    return 0;
  }
  if (is_ptx((const char *)p, n))
    return 1; /* the driver JIT-compiles PTX for whatever device it has */
  if (n < sizeof(Elf64_Ehdr) || memcmp(p, ELFMAG, SELFMAG) != 0) {
    snprintf(why, whylen, "neither ELF nor PTX text");
    return 0;
  }
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
  if (eh->e_ident[EI_CLASS] != ELFCLASS64) {
    snprintf(why, whylen, "not a 64-bit ELF");
    return 0;
  }
  if (eh->e_machine != EM_CUDA) {
    snprintf(why, whylen, "e_machine %u is not EM_CUDA (%d)",
             (unsigned)eh->e_machine, EM_CUDA);
    return 0;
  }
  int sm = cu_elf_sm(p, n);
  if (sm == 0) {
    snprintf(why, whylen, "e_flags 0x%x name no SM architecture",
             (unsigned)eh->e_flags);
    return 0;
  }
  int lo = id < 0 ? 0 : id, hi = id < 0 ? cu_num_devices() : id + 1;
  for (int i = lo; i < hi; i++)
    if (cu_dev(i) && sm_runs_on(sm, cu_dev(i)))
      return 1;
  char have[128] = "";
  size_t used = 0;
  for (int i = lo; i < hi && used < sizeof have; i++) {
    int k = snprintf(have + used, sizeof have - used, "%s%d: sm_%d%d",
                     i > lo ? ", " : "", i, cu_dev(i)->cc_major,
                     cu_dev(i)->cc_minor);
    if (k > 0)
      used += (size_t)k;
  }
  snprintf(why, whylen, "built for sm_%d; %s (device %s)", sm,
           id < 0 ? "no device can run it" : "the device cannot run it", have);
  return 0;
}

CU_EXPORT int32_t __tgt_rtl_is_valid_binary(__tgt_device_image *img) {
  if (cu_num_devices() <= 0)
    return 0;
  char why[256];
  if (image_ok(img, -1, why, sizeof why)) {
    ompemu_trace(2, CU_WHO, "image " OMPEMU_PTR " (%zu bytes) accepted",
                 OMPEMU_P(img->ImageStart), image_size(img));
    return 1;
  }
  /* Images for other plugins are the common case: say so only when verbose;
   * a CUDA image refused is worth a note at level 1. */
  const Elf64_Ehdr *eh = img->ImageStart;
  int cuda_image = image_size(img) >= sizeof *eh &&
                   memcmp(eh, ELFMAG, SELFMAG) == 0 && eh->e_machine == EM_CUDA;
  ompemu_trace(cuda_image ? 1 : 2, CU_WHO, "image " OMPEMU_PTR " refused: %s",
               OMPEMU_P(img->ImageStart), why);
  return 0;
}

/* Read kernel K's <name>_exec_mode byte (clang's nvptx code defines it;
 * generic-mode kernels need an extra warp for their main thread). */
static int read_exec_mode(int32_t id, struct cu_module *m, struct cu_kernel *k) {
  char gname[512];
  snprintf(gname, sizeof gname, "%s_exec_mode", k->name);
  CUdeviceptr g = 0;
  size_t bytes = 0;
  k->exec_mode = CU_EXEC_SPMD;
  CUresult r = cu.cuModuleGetGlobal(&g, &bytes, m->mod, gname);
  if (r == CUDA_ERROR_NOT_FOUND)
    return 0;
  if (cu_check(r, "cuModuleGetGlobal", id, "%s in image 0x%016lx", gname,
               OMPEMU_P(m->image)))
    return -1;
  int8_t mode = 0;
  if (bytes != 1) {
    ompemu_error(CU_WHO, "device %d: %s in image 0x%016lx is %zu bytes, "
                         "expected 1", (int)id, gname, OMPEMU_P(m->image), bytes);
    return -1;
  }
  r = cu.cuMemcpyDtoH(&mode, g, 1);
  if (cu_check(r, "cuMemcpyDtoH", id, "%s at 0x%016lx", gname, (unsigned long)g))
    return -1;
  k->exec_mode = mode;
  ompemu_trace(2, CU_WHO, "device %d: kernel %s runs in %s mode", (int)id,
               k->name, mode == CU_EXEC_GENERIC ? "generic"
               : mode == CU_EXEC_GENERIC_SPMD ? "generic-SPMD" : "SPMD");
  return 0;
}

/* Write LLVM 14's device environment (omptarget_device_environment:
 * {int32 debug, uint32 num_devices, uint32 device_num, uint32
 * dynamic_memory_size}) if module M has it; its device runtime reads the
 * device number from there. */
static int write_device_environment(int32_t id, struct cu_module *m) {
  CUdeviceptr g = 0;
  size_t bytes = 0;
  CUresult r = cu.cuModuleGetGlobal(&g, &bytes, m->mod,
                                    "omptarget_device_environment");
  if (r == CUDA_ERROR_NOT_FOUND)
    return 0;
  if (cu_check(r, "cuModuleGetGlobal", id, "omptarget_device_environment in "
               "image 0x%016lx", OMPEMU_P(m->image)))
    return -1;
  uint32_t env[4] = {0, (uint32_t)cu_num_devices(), (uint32_t)id, 0};
  const char *dbg = getenv("LIBOMPTARGET_DEVICE_RTL_DEBUG");
  if (dbg)
    env[0] = (uint32_t)strtoul(dbg, NULL, 0);
  if (bytes < sizeof env) {
    ompemu_error(CU_WHO, "device %d: omptarget_device_environment in image "
                         "0x%016lx is %zu bytes, expected %zu", (int)id,
                 OMPEMU_P(m->image), bytes, sizeof env);
    return -1;
  }
  r = cu.cuMemcpyHtoD(g, env, sizeof env);
  return cu_check(r, "cuMemcpyHtoD", id, "omptarget_device_environment at "
                  "0x%016lx", (unsigned long)g);
}

/* Fill device entry E (a copy of host entry H) for module M on device ID.
 * Kernels (size 0) get a cu_kernel slot; globals and link pointers their
 * cuModuleGetGlobal address; indirect functions (FPTR) the address the
 * module reports for the name through cuModuleGetGlobal. */
static int resolve_entry(int32_t id, struct cu_module *m, size_t i,
                         const __tgt_offload_entry *h) {
  __tgt_offload_entry *e = &m->entries[i];
  *e = *h;
  e->addr = NULL;
  if (!h->name) {
    ompemu_error(CU_WHO, "image 0x%016lx: host entry %zu has no name",
                 OMPEMU_P(m->image), i);
    return -1;
  }
  CUresult r;
  if (h->size == 0 && !(h->flags & (OMP_DECLARE_TARGET_LINK |
                                    OMP_DECLARE_TARGET_FPTR))) {
    struct cu_kernel *k = &m->kernels[i];
    r = cu.cuModuleGetFunction(&k->fn, m->mod, h->name);
    if (cu_check(r, "cuModuleGetFunction", id, "kernel '%s' in image 0x%016lx",
                 h->name, OMPEMU_P(m->image)))
      return -1;
    k->magic = CU_KERNEL_MAGIC;
    k->device = id;
    k->name = h->name;
    if (read_exec_mode(id, m, k) != 0)
      return -1;
    e->addr = k;
    ompemu_trace(2, CU_WHO, "device %d: kernel %s -> CUfunction " OMPEMU_PTR,
                 (int)id, h->name, OMPEMU_P(k->fn));
    return 0;
  }
  CUdeviceptr p = 0;
  size_t bytes = 0;
  r = cu.cuModuleGetGlobal(&p, &bytes, m->mod, h->name);
  if (cu_check(r, "cuModuleGetGlobal", id, "%s '%s' (%zu bytes) in image "
               "0x%016lx", (h->flags & OMP_DECLARE_TARGET_FPTR)
                               ? "indirect function" : "global",
               h->name, h->size, OMPEMU_P(m->image)))
    return -1;
  if (h->size != 0 && bytes != h->size && !(h->flags & OMP_DECLARE_TARGET_FPTR))
    ompemu_trace(1, CU_WHO, "device %d: global '%s' is %zu bytes on the device "
                 "but %zu on the host", (int)id, h->name, bytes, h->size);
  e->addr = (void *)(uintptr_t)p;
  ompemu_trace(2, CU_WHO, "device %d: global %s -> " OMPEMU_PTR " (%zu bytes)",
               (int)id, h->name, (unsigned long)p, bytes);
  return 0;
}

/* Point __omp_offloading_fptr_map_p / _size of module M at TABLE / N, if M
 * defines them: cuModuleGetGlobal + a pointer-sized copy each
 * (docs/indirect-functions.md). */
static int write_fptr_globals(int32_t id, struct cu_module *m, CUdeviceptr table,
                              uint64_t n) {
  static const char *const names[2] = {"__omp_offloading_fptr_map_p",
                                       "__omp_offloading_fptr_map_size"};
  uint64_t vals[2] = {(uint64_t)table, n};
  for (int i = 0; i < 2; i++) {
    CUdeviceptr g = 0;
    size_t bytes = 0;
    CUresult r = cu.cuModuleGetGlobal(&g, &bytes, m->mod, names[i]);
    if (r == CUDA_ERROR_NOT_FOUND) {
      ompemu_trace(2, CU_WHO, "device %d: image " OMPEMU_PTR " has no %s",
                   (int)id, OMPEMU_P(m->image), names[i]);
      continue;
    }
    if (cu_check(r, "cuModuleGetGlobal", id, "%s in image 0x%016lx", names[i],
                 OMPEMU_P(m->image)))
      return -1;
    if (bytes != sizeof(uint64_t)) {
      ompemu_error(CU_WHO, "device %d: %s in image 0x%016lx is %zu bytes, "
                           "expected 8", (int)id, names[i], OMPEMU_P(m->image),
                   bytes);
      return -1;
    }
    r = cu.cuMemcpyHtoD(g, &vals[i], sizeof vals[i]);
    if (cu_check(r, "cuMemcpyHtoD", id, "%s at 0x%016lx in image 0x%016lx",
                 names[i], (unsigned long)g, OMPEMU_P(m->image)))
      return -1;
    ompemu_trace(2, CU_WHO, "device %d: %s at " OMPEMU_PTR " = 0x%016lx",
                 (int)id, names[i], (unsigned long)g, (unsigned long)vals[i]);
  }
  return 0;
}

CU_EXPORT __tgt_target_table *__tgt_rtl_load_binary(int32_t id,
                                                    __tgt_device_image *img) {
  struct cu_device *d = cu_enter(id, "load_binary");
  if (!d || !img || cu_use(d, id, "load_binary") != 0)
    return NULL;
  char why[256];
  if (!image_ok(img, id, why, sizeof why)) {
    ompemu_error(CU_WHO, "device %d cannot load image 0x%016lx: %s", (int)id,
                 OMPEMU_P(img->ImageStart), why);
    return NULL;
  }
  size_t n = (size_t)(img->EntriesEnd - img->EntriesBegin);
  struct cu_module *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->image = img->ImageStart;
  m->entries = calloc(n ? n : 1, sizeof *m->entries);
  m->kernels = calloc(n ? n : 1, sizeof *m->kernels);
  if (!m->entries || !m->kernels)
    goto fail;

  char log[4096] = "";
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER,
                          CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
  /* The driver reads PTX as a C string, but an embedded PTX image ends at
   * ImageEnd without a NUL: pass a terminated copy (cubins are binary and
   * carry their size). */
  const char *bytes = img->ImageStart;
  size_t size = image_size(img);
  char *ptx = NULL;
  if (is_ptx(bytes, size) && bytes[size - 1] != '\0') {
    ptx = malloc(size + 1);
    if (!ptx) {
      ompemu_error(CU_WHO, "device %d: out of host memory for a copy of PTX "
                   "image 0x%016lx (%zu bytes)", (int)id, OMPEMU_P(bytes), size);
      goto fail;
    }
    memcpy(ptx, bytes, size);
    ptx[size] = '\0';
  }
  CUresult r = cu.cuModuleLoadDataEx(&m->mod, ptx ? ptx : bytes, 2, opts, vals);
  free(ptx);
  if (r != CUDA_SUCCESS) {
    cu_check(r, "cuModuleLoadDataEx", id, "image 0x%016lx (%zu bytes)%s%s%s",
             OMPEMU_P(img->ImageStart), image_size(img),
             log[0] ? ", driver log: \"" : "", log, log[0] ? "\"" : "");
    goto fail;
  }
  for (size_t i = 0; i < n; i++)
    if (resolve_entry(id, m, i, &img->EntriesBegin[i]) != 0)
      goto fail_unload;
  if (write_device_environment(id, m) != 0)
    goto fail_unload;
  m->table.EntriesBegin = m->entries;
  m->table.EntriesEnd = m->entries + n;

  /* An image loaded after the table was set gets it too; fptr_lock orders
   * this write against a concurrent set_function_ptr_map. */
  pthread_mutex_lock(&d->fptr_lock);
  pthread_mutex_lock(&d->lock);
  CUdeviceptr table = d->fptr_table;
  uint64_t nfptr = d->fptr_n;
  m->next = d->modules;
  d->modules = m;
  pthread_mutex_unlock(&d->lock);
  int frc = table ? write_fptr_globals(id, m, table, nfptr) : 0;
  pthread_mutex_unlock(&d->fptr_lock);
  if (frc != 0)
    return NULL; /* the module stays listed: unloaded at deinit */
  ompemu_trace(1, CU_WHO, "device %d: loaded image " OMPEMU_PTR
               " as module " OMPEMU_PTR " (%zu entries)", (int)id,
               OMPEMU_P(img->ImageStart), OMPEMU_P(m->mod), n);
  return &m->table;

fail_unload:
  cu_check(cu.cuModuleUnload(m->mod), "cuModuleUnload", id, "image 0x%016lx",
           OMPEMU_P(img->ImageStart));
fail:
  free(m->entries);
  free(m->kernels);
  free(m);
  return NULL;
}

CU_EXPORT int32_t __tgt_rtl_set_function_ptr_map(
    int32_t id, uint64_t n, __omp_offloading_fptr_map_ty *table) {
  struct cu_device *d = cu_enter(id, "set_function_ptr_map");
  if (!d || cu_use(d, id, "set_function_ptr_map") != 0)
    return OFFLOAD_FAIL;
  size_t bytes = (size_t)n * sizeof *table;
  CUdeviceptr dt = 0;
  if (n > 0) {
    CUresult r = cu_mem_alloc(d, id, &dt, bytes);
    if (cu_check(r, "cuMemAlloc", id, "the fptr table (%lu entries, %zu bytes)",
                 (unsigned long)n, bytes))
      return OFFLOAD_FAIL;
    r = cu.cuMemcpyHtoD(dt, table, bytes);
    if (cu_check(r, "cuMemcpyHtoD", id, "the fptr table host 0x%016lx to "
                 "device 0x%016lx (%zu bytes)", OMPEMU_P(table),
                 (unsigned long)dt, bytes)) {
      cu.cuMemFree(dt);
      return OFFLOAD_FAIL;
    }
  }
  int rc = OFFLOAD_SUCCESS;
  /* Modules are only ever added at the head of the list and never removed
   * while the device lives, so the list from HEAD can be walked unlocked;
   * fptr_lock orders these writes against a concurrent load_binary. */
  pthread_mutex_lock(&d->fptr_lock);
  pthread_mutex_lock(&d->lock);
  CUdeviceptr old = d->fptr_table;
  d->fptr_table = dt;
  d->fptr_n = n;
  struct cu_module *head = d->modules;
  pthread_mutex_unlock(&d->lock);
  for (struct cu_module *m = head; m; m = m->next)
    if (write_fptr_globals(id, m, dt, n) != 0)
      rc = OFFLOAD_FAIL;
  pthread_mutex_unlock(&d->fptr_lock);
  if (old && cu_check(cu.cuMemFree(old), "cuMemFree", id, "the previous fptr "
                      "table 0x%016lx", (unsigned long)old))
    rc = OFFLOAD_FAIL;
  ompemu_trace(1, CU_WHO, "device %d: fptr table of %lu entries at " OMPEMU_PTR,
               (int)id, (unsigned long)n, (unsigned long)dt);
  return rc;
}

/* Unload D's modules and free their tables (the context is current). */
int cu_modules_fini(struct cu_device *d, int32_t id) {
  int rc = 0;
  while (d->modules) {
    struct cu_module *m = d->modules;
    d->modules = m->next;
    if (cu_check(cu.cuModuleUnload(m->mod), "cuModuleUnload", id, "module "
                 "0x%016lx of image 0x%016lx", OMPEMU_P(m->mod),
                 OMPEMU_P(m->image)))
      rc = -1;
    free(m->entries);
    free(m->kernels);
    free(m);
  }
  return rc;
}
