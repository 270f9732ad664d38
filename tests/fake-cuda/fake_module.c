/* CUDA driver test double, modules and kernels.  A "cubin" here is a host
 * x86-64 shared object (built with $CC -shared -fPIC) whose e_machine was
 * patched to EM_CUDA (190) and whose e_flags carry the SM it claims (as a
 * real cubin: SM in bits 0-7, or bits 8-15 when e_ident[EI_ABIVERSION] is
 * 8).  cuModuleLoadDataEx checks the SM against FAKE_CUDA_CC, restores
 * e_machine, writes the copy to a temp file and dlopens it; kernels and
 * globals are found by name with dlsym; cuLaunchKernel runs the function
 * once on the host (libffi, every parameter a pointer-sized value) when its
 * stream is synchronized.  PTX is read as a C string and checked for bytes
 * no PTX text holds (the driver's parser rejects them); it runs only when
 * it names a host object to stand for it (load_ptx).
 *
 * Device code may call __kmpc_target_translate_fptr: the fake finds the
 * calling module from the return address and binary-searches that module's
 * __omp_offloading_fptr_map_p / __omp_offloading_fptr_map_size. */
#define _GNU_SOURCE
#include "fake.h"

#include <dlfcn.h>
#include <elf.h>
#include <ffi.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef EM_CUDA
#define EM_CUDA 190
#endif

/* Bytes of the ELF file at P: the furthest header, section or segment end. */
static size_t elf_size(const unsigned char *p) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)p;
  size_t end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
  size_t ph = eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize;
  if (ph > end)
    end = ph;
  const Elf64_Phdr *phd = (const Elf64_Phdr *)(p + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (phd[i].p_offset + phd[i].p_filesz > end)
      end = phd[i].p_offset + phd[i].p_filesz;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(p + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_offset + sh[i].sh_size > end)
      end = sh[i].sh_offset + sh[i].sh_size;
  return end;
}

static void set_log(unsigned n, CUjit_option *o, void **v, const char *msg) {
  char *buf = NULL;
  size_t len = 0;
  for (unsigned i = 0; i < n; i++) {
    if (o[i] == CU_JIT_ERROR_LOG_BUFFER)
      buf = v[i];
    if (o[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      len = (size_t)(uintptr_t)v[i];
  }
  if (buf && len)
    snprintf(buf, len, "%s", msg);
}

struct span_arg {
  const char *path;
  uintptr_t lo, hi;
};

static int find_span(struct dl_phdr_info *info, size_t sz, void *arg) {
  struct span_arg *a = arg;
  (void)sz;
  if (!info->dlpi_name || strcmp(info->dlpi_name, a->path) != 0)
    return 0;
  a->lo = UINTPTR_MAX;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD)
      continue;
    uintptr_t s = info->dlpi_addr + ph->p_vaddr;
    if (s < a->lo)
      a->lo = s;
    if (s + ph->p_memsz > a->hi)
      a->hi = s + ph->p_memsz;
  }
  return 1;
}

/* Write the x86-64 shared object ELF (SIZE bytes, possibly patched to
 * EM_CUDA) to a temporary file with its header restored, dlopen it and make
 * it module *OUT of device D.  WHAT names the image in the log. */
static CUresult load_host_object(int d, const unsigned char *elf, size_t size,
                                 unsigned n, CUjit_option *opts, void **vals,
                                 const char *what, CUmodule *out) {
  unsigned char *copy = malloc(size);
  if (!copy)
    return CUDA_ERROR_OUT_OF_MEMORY;
  memcpy(copy, elf, size);
  ((Elf64_Ehdr *)copy)->e_machine = EM_X86_64;
  ((Elf64_Ehdr *)copy)->e_flags = 0;
  ((Elf64_Ehdr *)copy)->e_ident[EI_ABIVERSION] = 0;
  const char *tmp = getenv("TMPDIR");
  char path[512];
  snprintf(path, sizeof path, "%s/fake-cuda-module-XXXXXX",
           tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, copy, size) != (ssize_t)size) {
    free(copy);
    if (fd >= 0) {
      close(fd);
      unlink(path);
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  close(fd);
  free(copy);
  /* Device code resolves __kmpc_target_translate_fptr against the fake:
   * put the fake in the global scope first. */
  Dl_info self;
  if (dladdr((void *)cuModuleLoadDataEx, &self) && self.dli_fname)
    dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    char msg[600];
    snprintf(msg, sizeof msg, "fake-cuda: %s", dlerror());
    set_log(n, opts, vals, msg);
    fake_log("cuModuleLoadDataEx dev=%d: dlopen failed: %s", d, msg);
    unlink(path);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  struct span_arg sa = {path, 0, 0};
  dl_iterate_phdr(find_span, &sa);
  unlink(path);
  struct fake_module *m = calloc(1, sizeof *m);
  m->magic = FAKE_MOD_MAGIC;
  m->device = d;
  m->handle = h;
  m->lo = sa.lo;
  m->hi = sa.hi;
  m->loaded = 1;
  pthread_mutex_lock(&fake_lock);
  m->next = fake.modules;
  fake.modules = m;
  pthread_mutex_unlock(&fake_lock);
  *out = (CUmodule)m;
  fake_log("cuModuleLoadDataEx dev=%d image=0x%016lx %s options=%u -> "
           "module 0x%016lx", d, (unsigned long)(uintptr_t)elf, what, n,
           (unsigned long)(uintptr_t)m);
  return CUDA_SUCCESS;
}

#define PTX_MODULE_TAG "// fake-cuda-module: "

/* PTX text: the driver reads it as a C string, up to its NUL, and its
 * parser rejects a byte no PTX text contains (what it finds after an image
 * passed without its terminating NUL).  Well-formed PTX cannot run here,
 * except that a line "// fake-cuda-module: PATH" makes the host shared
 * object PATH the module, so a PTX image can be loaded and run in tests. */
static CUresult load_ptx(int d, const char *ptx, unsigned n, CUjit_option *opts,
                         void **vals, CUmodule *out) {
  size_t len = strlen(ptx), line = 1;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)ptx[i];
    if (c == '\n')
      line++;
    if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r')
      continue;
    char msg[160];
    snprintf(msg, sizeof msg, "ptxas application ptx input, line %zu; fatal   "
             ": Parsing error near '\\x%02x': syntax error", line, c);
    set_log(n, opts, vals, msg);
    fake_log("cuModuleLoadDataEx dev=%d image=0x%016lx: PTX of %zu bytes: %s",
             d, (unsigned long)(uintptr_t)ptx, len, msg);
    return CUDA_ERROR_INVALID_PTX;
  }
  const char *tag = strstr(ptx, PTX_MODULE_TAG);
  if (!tag) {
    fake_log("cuModuleLoadDataEx dev=%d image=0x%016lx: PTX of %zu bytes "
             "refused", d, (unsigned long)(uintptr_t)ptx, len);
    set_log(n, opts, vals, "fake-cuda: PTX cannot run on the test double");
    return CUDA_ERROR_INVALID_PTX;
  }
  char path[512];
  tag += strlen(PTX_MODULE_TAG);
  snprintf(path, sizeof path, "%.*s", (int)strcspn(tag, "\r\n"), tag);
  FILE *f = fopen(path, "rb");
  if (!f) {
    set_log(n, opts, vals, "fake-cuda: cannot open the PTX image's module");
    return CUDA_ERROR_FILE_NOT_FOUND;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  rewind(f);
  unsigned char *elf = size > 0 ? malloc((size_t)size) : NULL;
  CUresult r = CUDA_ERROR_INVALID_IMAGE;
  if (elf && fread(elf, 1, (size_t)size, f) == (size_t)size) {
    char what[64];
    snprintf(what, sizeof what, "ptx (%zu bytes)", len);
    r = load_host_object(d, elf, (size_t)size, n, opts, vals, what, out);
  }
  free(elf);
  fclose(f);
  return r;
}

CUresult cuModuleLoadDataEx(CUmodule *out, const void *image, unsigned int n,
                            CUjit_option *opts, void **vals) {
  FAKE_CALL();
  int d = fake_cur_device("cuModuleLoadDataEx");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  const unsigned char *p = image;
  if (!p)
    return CUDA_ERROR_INVALID_VALUE;
  if (p[0] == '/' || p[0] == '.' || p[0] == ' ' || p[0] == '\n' || p[0] == '\t')
    return load_ptx(d, image, n, opts, vals, out);
  const Elf64_Ehdr *eh = image;
  if (memcmp(p, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_machine != EM_CUDA) {
    fake_log("cuModuleLoadDataEx dev=%d image=0x%016lx: not an EM_CUDA ELF", d,
             (unsigned long)(uintptr_t)p);
    return CUDA_ERROR_INVALID_IMAGE;
  }
  if (eh->e_ident[EI_OSABI] == 0x33 || eh->e_ident[EI_OSABI] == 0x41) {
    fake_log("cuModuleLoadDataEx dev=%d image=0x%016lx: a real cubin (OS ABI "
             "0x%x)", d, (unsigned long)(uintptr_t)p, eh->e_ident[EI_OSABI]);
    set_log(n, opts, vals, "fake-cuda: a real cubin; the test double runs only "
                           "host shared objects marked EM_CUDA");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  int sm = eh->e_ident[EI_ABIVERSION] >= 8 ? (int)((eh->e_flags >> 8) & 0xff)
                                           : (int)(eh->e_flags & 0xff);
  if (sm / 10 != fake.cc / 10 || sm % 10 > fake.cc % 10) {
    fake_log("cuModuleLoadDataEx dev=%d image=0x%016lx: sm_%d on a sm_%d device",
             d, (unsigned long)(uintptr_t)p, sm, fake.cc);
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  char what[16];
  snprintf(what, sizeof what, "sm_%d", sm);
  return load_host_object(d, p, elf_size(p), n, opts, vals, what, out);
}

static struct fake_module *mod_check(CUmodule hm) {
  struct fake_module *m = (struct fake_module *)hm;
  return m && m->magic == FAKE_MOD_MAGIC && m->loaded ? m : NULL;
}

CUresult cuModuleUnload(CUmodule hm) {
  FAKE_CALL();
  struct fake_module *m = mod_check(hm);
  if (!m)
    return CUDA_ERROR_INVALID_HANDLE;
  fake_log("cuModuleUnload module=0x%016lx", (unsigned long)(uintptr_t)m);
  pthread_mutex_lock(&fake_lock);
  m->loaded = 0;
  pthread_mutex_unlock(&fake_lock);
  dlclose(m->handle);
  return CUDA_SUCCESS;
}

/* NAME's definition in module M (not in a library M depends on), with its
 * symbol-table entry. */
static void *mod_sym(struct fake_module *m, const char *name,
                     const ElfW(Sym) **sym) {
  void *a = dlsym(m->handle, name);
  Dl_info info;
  *sym = NULL;
  if (!a || !dladdr1(a, &info, (void **)sym, RTLD_DL_SYMENT) || !*sym)
    return NULL;
  if ((uintptr_t)a < m->lo || (uintptr_t)a >= m->hi)
    return NULL;
  return a;
}

CUresult cuModuleGetFunction(CUfunction *out, CUmodule hm, const char *name) {
  FAKE_CALL();
  struct fake_module *m = mod_check(hm);
  if (!m || !name)
    return CUDA_ERROR_INVALID_HANDLE;
  const ElfW(Sym) *sym;
  void *a = mod_sym(m, name, &sym);
  if (!a || ELF64_ST_TYPE(sym->st_info) != STT_FUNC) {
    fake_log("cuModuleGetFunction module=0x%016lx name=%s -> not found",
             (unsigned long)(uintptr_t)m, name);
    return CUDA_ERROR_NOT_FOUND;
  }
  pthread_mutex_lock(&fake_lock);
  struct fake_function *f;
  for (f = m->fns; f && f->fn != a; f = f->next)
    ;
  if (!f) {
    f = calloc(1, sizeof *f);
    f->magic = FAKE_FN_MAGIC;
    f->fn = a;
    snprintf(f->name, sizeof f->name, "%s", name);
    f->mod = m;
    f->next = m->fns;
    m->fns = f;
  }
  pthread_mutex_unlock(&fake_lock);
  *out = (CUfunction)f;
  fake_log("cuModuleGetFunction module=0x%016lx name=%s -> 0x%016lx",
           (unsigned long)(uintptr_t)m, name, (unsigned long)(uintptr_t)f);
  return CUDA_SUCCESS;
}

/* Any symbol by name: data objects as on CUDA; functions too (the test
 * double's way of giving an indirect function's device address). */
CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hm,
                           const char *name) {
  FAKE_CALL();
  struct fake_module *m = mod_check(hm);
  if (!m || !name)
    return CUDA_ERROR_INVALID_HANDLE;
  const ElfW(Sym) *sym;
  void *a = mod_sym(m, name, &sym);
  if (!a) {
    fake_log("cuModuleGetGlobal_v2 module=0x%016lx name=%s -> not found",
             (unsigned long)(uintptr_t)m, name);
    return CUDA_ERROR_NOT_FOUND;
  }
  if (dptr)
    *dptr = (CUdeviceptr)(uintptr_t)a;
  if (bytes)
    *bytes = sym->st_size;
  fake_log("cuModuleGetGlobal_v2 module=0x%016lx name=%s -> 0x%016lx size=%lu",
           (unsigned long)(uintptr_t)m, name, (unsigned long)(uintptr_t)a,
           (unsigned long)sym->st_size);
  return CUDA_SUCCESS;
}

CUresult fake_run_kernel(struct fake_function *f, int n, void **vals) {
  ffi_cif cif;
  ffi_type *types[FAKE_MAX_PARAMS];
  void *argp[FAKE_MAX_PARAMS];
  for (int i = 0; i < n; i++) {
    types[i] = &ffi_type_pointer;
    argp[i] = &vals[i];
  }
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)n, &ffi_type_void, types) !=
      FFI_OK)
    return CUDA_ERROR_LAUNCH_FAILED;
  fake_log("run %s (%d args)", f->name, n);
  char gate[160];
  snprintf(gate, sizeof gate, "run %s", f->name);
  fake_gate(gate);
  if (fake.fault[0] && strcmp(fake.fault, f->name) == 0) {
    fake_log("run %s: illegal address (FAKE_CUDA_KERNEL_FAULT)", f->name);
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  }
  ffi_call(&cif, FFI_FN(f->fn), NULL, argp);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction hf, unsigned int gx, unsigned int gy,
                        unsigned int gz, unsigned int bx, unsigned int by,
                        unsigned int bz, unsigned int shmem, CUstream hs,
                        void **params, void **extra) {
  FAKE_CALL();
  struct fake_function *f = (struct fake_function *)hf;
  int d = fake_cur_device("cuLaunchKernel");
  if (d < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!f || f->magic != FAKE_FN_MAGIC || !f->mod->loaded)
    return CUDA_ERROR_INVALID_HANDLE;
  struct fake_stream *s = hs ? fake_stream_check(hs) : NULL;
  if (hs && !s)
    return CUDA_ERROR_INVALID_HANDLE;
  if (extra)
    return CUDA_ERROR_INVALID_VALUE; /* the plugin passes params, not extra */
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 ||
      (unsigned long)bx * by * bz > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  struct fake_op *op = calloc(1, sizeof *op);
  op->kind = OP_LAUNCH;
  op->fn = f;
  char args[FAKE_MAX_PARAMS * 20] = "";
  size_t used = 0;
  /* The parameter array ends with a NULL (see README): count up to it. */
  for (int i = 0; params && params[i] && i < FAKE_MAX_PARAMS; i++) {
    op->vals[i] = *(void **)params[i];
    op->nparams = i + 1;
    int k = snprintf(args + used, sizeof args - used, "%s0x%016lx",
                     i ? "," : "", (unsigned long)(uintptr_t)op->vals[i]);
    if (k > 0)
      used += (size_t)k;
  }
  fake_log("cuLaunchKernel dev=%d name=%s grid=(%u,%u,%u) block=(%u,%u,%u) "
           "shmem=%u stream=0x%016lx nparams=%d args=%s", d, f->name, gx, gy,
           gz, bx, by, bz, shmem, (unsigned long)(uintptr_t)s, op->nparams,
           args);
  if (fake.launch_fail) {
    free(op);
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  return fake_submit(s, op);
}

/* The device runtime's pointer translation (docs/indirect-functions.md). */
FAKE_EXPORT void *__kmpc_target_translate_fptr(void *fp) {
  uintptr_t caller = (uintptr_t)__builtin_return_address(0);
  struct fake_module *m;
  pthread_mutex_lock(&fake_lock);
  for (m = fake.modules; m; m = m->next)
    if (m->loaded && caller >= m->lo && caller < m->hi)
      break;
  pthread_mutex_unlock(&fake_lock);
  if (!m) {
    fake_log("__kmpc_target_translate_fptr 0x%016lx: caller 0x%016lx is in no "
             "module", (unsigned long)(uintptr_t)fp, (unsigned long)caller);
    return fp;
  }
  const ElfW(Sym) *s1, *s2;
  int64_t **pp = mod_sym(m, "__omp_offloading_fptr_map_p", &s1);
  uint64_t *np = mod_sym(m, "__omp_offloading_fptr_map_size", &s2);
  void *res = fp;
  if (pp && np && *pp) {
    const int64_t *t = *pp; /* {host_ptr, tgt_ptr} pairs sorted by host */
    uint64_t lo = 0, hi = *np;
    while (lo < hi) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (t[2 * mid] == (int64_t)(intptr_t)fp) {
        res = (void *)(intptr_t)t[2 * mid + 1];
        break;
      }
      if (t[2 * mid] < (int64_t)(intptr_t)fp)
        lo = mid + 1;
      else
        hi = mid;
    }
  }
  fake_log("__kmpc_target_translate_fptr module=0x%016lx 0x%016lx -> 0x%016lx "
           "(table 0x%016lx, %lu entries)", (unsigned long)(uintptr_t)m,
           (unsigned long)(uintptr_t)fp, (unsigned long)(uintptr_t)res,
           (unsigned long)(uintptr_t)(pp ? *pp : NULL),
           (unsigned long)(np ? *np : 0));
  return res;
}
