/* Relocation of a loaded image: one loop over DT_RELA, DT_RELR and
 * DT_JMPREL with one switch over the neutral kinds of reloc.h, everything
 * bound now.  Undefined symbols resolve against the device runtime first,
 * then the process's global scope, then the image's DT_NEEDED libraries;
 * symbols the image defines bind to its own definition (a device image is
 * its own world: the host may define the same names). */
#define _GNU_SOURCE /* dlvsym, dladdr, RTLD_DEFAULT */
#include "config.h"
#include "devicertl.h"
#include "fresh_root.h"
#include "loader_internal.h"
#include "loader.h"
#include "reloc.h"
#include "tls.h"
#include "trace.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* 1 if NAME is the soname of an offload runtime: "libomptarget.so", or a
 * versioned one as clang 16/19/22 and flang 22 images need
 * ("libomptarget.so.16", ".so.19.1", ".so.22.1"). */
static int is_offload_runtime(const char *name) {
  static const char stem[] = "libomptarget.so";
  return strncmp(name, stem, sizeof stem - 1) == 0 &&
         (name[sizeof stem - 1] == '\0' || name[sizeof stem - 1] == '.');
}

/* The offload runtime already in the process (the one that loaded this
 * plugin), as a handle, or NULL if there is none.  An image's NEEDED
 * libomptarget.so.N means that runtime: loading a file of that name would
 * bring a second runtime (LLVM's own, found through the image's RUNPATH or
 * the library path) whose constructors would run. */
static void *loaded_offload_runtime(void) {
  void *sym = dlsym(RTLD_DEFAULT, "__tgt_register_lib");
  Dl_info info;
  if (!sym || !dladdr(sym, &info) || !info.dli_fname || !*info.dli_fname)
    return NULL;
  return dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
}

/* Open IMG's DT_NEEDED libraries: already loaded ones first (made global),
 * then by name, then in each DT_RUNPATH/DT_RPATH directory.  An offload
 * runtime is never opened by name (loaded_offload_runtime). */
static int open_needed(struct emu_image *img) {
  img->handles_open = 1;
  if (!img->nneeded)
    return 0;
  img->handles = calloc(img->nneeded, sizeof *img->handles);
  if (!img->handles)
    return img_fail(img, "out of memory");
  const char *rpath = NULL;
  if (img->has[DT_RUNPATH])
    rpath = dyn_string(img, img->dyn[DT_RUNPATH]);
  else if (img->has[DT_RPATH])
    rpath = dyn_string(img, img->dyn[DT_RPATH]);
  for (size_t i = 0; i < img->nneeded; i++) {
    const char *name = dyn_string(img, img->needed[i]);
    if (is_offload_runtime(name)) {
      void *rt = loaded_offload_runtime();
      ompemu_trace(2, "emu", "image %s: needed library %s is the runtime in "
                   "the process (handle " OMPEMU_PTR ")", img->label, name,
                   OMPEMU_P(rt));
      if (rt)
        img->handles[img->nhandles++] = rt;
      continue;
    }
    void *h = dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
#ifndef EMU_LOADER_FUZZING
    /* The fuzzer never loads new libraries: their constructors would run. */
    /* NODELETE: a runtime such as libomp keeps threads alive after the
     * image is gone. */
    if (!h)
      h = dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    for (const char *p = rpath; !h && p && *p && !strchr(name, '/');) {
      const char *e = strchr(p, ':');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      char path[PATH_MAX];
      if (n && !memchr(p, '$', n) &&
          snprintf(path, sizeof path, "%.*s/%s", (int)n, p, name) <
              (int)sizeof path)
        h = dlopen(path, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
      p = e ? e + 1 : NULL;
    }
#else
    (void)rpath;
#endif
    if (!h) {
      const char *err = dlerror();
      return img_fail(img,
                      "needed library '%s' cannot be opened%s%s%s: %s", name,
                      rpath ? " (run path '" : "", rpath ? rpath : "",
                      rpath ? "')" : "", err ? err : "not loaded");
    }
    ompemu_trace(2, "emu", "image %s: needed library %s at handle " OMPEMU_PTR,
                 img->label, name, OMPEMU_P(h));
    img->handles[img->nhandles++] = h;
  }
  return 0;
}

void reloc_close_handles(struct emu_image *img) {
  for (size_t i = 0; i < img->nhandles; i++)
    dlclose(img->handles[i]);
  free(img->handles);
  img->handles = NULL;
  img->nhandles = 0;
}

/* The version the image requires of its undefined symbol IDX
 * ("GLIBC_2.2.5"), from DT_VERSYM and DT_VERNEED; NULL if none.  A
 * malformed version table only loses the version. */
static const char *symbol_version(const struct emu_image *img, uint64_t idx) {
  if (!img->has[DYN_VERSYM] || !img->has[DYN_VERNEED])
    return NULL;
  uint64_t at = img->dyn[DYN_VERSYM] + idx * 2;
  if (!img_has(img, at, 2))
    return NULL;
  uint16_t ndx;
  memcpy(&ndx, img_ptr(img, at), 2);
  ndx &= 0x7fff;
  if (ndx < 2)
    return NULL; /* local or global: unversioned */
  uint64_t nneed = img->has[DYN_VERNEEDNUM] ? img->dyn[DYN_VERNEEDNUM] : 0;
  at = img->dyn[DYN_VERNEED];
  for (uint64_t n = 0; n < nneed && n < 256; n++) {
    Elf64_Verneed vn;
    if (!img_has(img, at, sizeof vn))
      return NULL;
    memcpy(&vn, img_ptr(img, at), sizeof vn);
    uint64_t aux = at + vn.vn_aux;
    for (unsigned c = 0; c < vn.vn_cnt && c < 256; c++) {
      Elf64_Vernaux va;
      if (!img_has(img, aux, sizeof va))
        return NULL;
      memcpy(&va, img_ptr(img, aux), sizeof va);
      if (va.vna_other == ndx)
        return dyn_string(img, va.vna_name);
      if (!va.vna_next)
        break;
      aux += va.vna_next;
    }
    if (!vn.vn_next)
      break;
    at += vn.vn_next;
  }
  return NULL;
}

/* The SysV ELF hash of NAME, as version entries carry it. */
static uint32_t elf_hash(const char *name) {
  uint32_t h = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    h = (h << 4) + *p;
    uint32_t g = h & 0xf0000000u;
    if (g)
      h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

/* NAME in the scope of HANDLE, at version VER if not NULL.  dlvsym skips
 * unversioned definitions, which the dynamic linker accepts for versioned
 * references (that is how interposers like ASan's win), so: the default
 * definition, unless the versioned one lives in the same object (an older
 * version of the same function, as realpath@GLIBC_2.2.5). */
static void *lookup(void *handle, const char *name, const char *ver) {
  /* glibc's dlvsym compares the version's name with unused version slots
   * (hash 0, name NULL) when the hashes agree: never ask for such a one. */
  if (ver && elf_hash(ver) == 0)
    ver = NULL;
  void *def = dlsym(handle, name);
  void *v = ver ? dlvsym(handle, name, ver) : NULL;
  if (!v || !def || v == def)
    return def ? def : v;
  Dl_info a, b;
  if (dladdr(def, &a) && dladdr(v, &b) && a.dli_fbase == b.dli_fbase)
    return v;
  return def;
}

/* Value of dynamic symbol IDX for relocation RELNO at R_OFFSET, in *VALUE;
 * *IFUNC set if it is the image's own STT_GNU_IFUNC (value = resolver). */
static int resolve_uncached(struct emu_image *img, uint64_t idx,
                            size_t relno, uint64_t r_offset, uintptr_t *value,
                            int *ifunc) {
  *ifunc = 0;
  if (idx >= img->nsyms)
    return img_fail(img,
                    "relocation %zu at 0x%lx: symbol index %lu beyond the "
                    "symbol table (%lu symbols)",
                    relno, (unsigned long)r_offset, (unsigned long)idx,
                    (unsigned long)img->nsyms);
  Elf64_Sym s;
  dyn_symbol(img, idx, &s);
  const char *name = dyn_string(img, s.st_name);
  if (!name)
    return img_fail(img,
                    "relocation %zu: symbol %lu has name offset 0x%x outside "
                    "the string table (size 0x%lx)",
                    relno, (unsigned long)idx, s.st_name,
                    (unsigned long)img->dyn[DT_STRSZ]);
  if (ELF64_ST_TYPE(s.st_info) == STT_TLS)
    return img_fail(img,
                    "relocation %zu at 0x%lx: thread-local symbol '%s' used "
                    "as an address",
                    relno, (unsigned long)r_offset, name);
  if (s.st_shndx == SHN_ABS) {
    *value = s.st_value;
    return 0;
  }
  if (s.st_shndx != SHN_UNDEF) {
    if (!img_has(img, s.st_value, 1))
      return img_fail(img,
                      "symbol '%s' (index %lu) has value 0x%lx outside the "
                      "image span [0x%lx, 0x%lx)",
                      name, (unsigned long)idx, (unsigned long)s.st_value,
                      (unsigned long)img->vlo, (unsigned long)img->vhi);
    *value = (uintptr_t)img_ptr(img, s.st_value);
    *ifunc = ELF64_ST_TYPE(s.st_info) == STT_GNU_IFUNC;
    return 0;
  }
  if (!*name)
    return img_fail(img,
                    "relocation %zu: undefined symbol %lu has no name", relno,
                    (unsigned long)idx);
  /* After the device runtime, the dynamic linker's own order: the global
   * scope (so interposers such as ASan's or an LD_PRELOAD'ed malloc win, as
   * they do for the host), then the image's own dependencies. */
  void *p = NULL;
  if (img->tls && strcmp(name, "__tls_get_addr") == 0)
    p = tls_get_addr_fn(); /* the image's TLS lives in its own module */
  if (!p && img->serializes)
    p = fresh_root_lookup(name); /* libomp 14's teams check, fresh_root.c */
  if (!p && img->gpu_style)
    p = devicertl_flang_lookup(name); /* flang's kernels, devicertl_flang.c */
  if (!p)
    p = devicertl_lookup(name);
  if (!p) {
    if (!img->handles_open && open_needed(img) != 0)
      return -1;
    const char *ver = symbol_version(img, idx);
    p = lookup(RTLD_DEFAULT, name, ver);
    for (size_t i = 0; !p && i < img->nhandles; i++)
      p = lookup(img->handles[i], name, ver);
  }
  if (!p && ELF64_ST_BIND(s.st_info) != STB_WEAK)
    return img_fail(img,
                    "undefined symbol '%s' (relocation %zu at 0x%lx) not "
                    "found in the device runtime, the needed libraries or "
                    "the process",
                    name, relno, (unsigned long)r_offset);
  *value = (uintptr_t)p;
  return 0;
}

/* The offset in IMG's TLS block that relocation RELNO of type TYPE with
 * symbol IDX and ADDEND means, in *OFF: the symbol must be a thread-local
 * one of IMG itself (or IDX 0: the module itself). */
static int tls_offset(struct emu_image *img, uint32_t type, uint64_t idx,
                      int64_t addend, size_t relno, uint64_t *off) {
  uint64_t v = 0;
  if (!img->tls)
    return img_fail(img,
                    "relocation %zu: %s in an image without PT_TLS", relno,
                    reloc_name(type));
  if (idx != 0) {
    if (idx >= img->nsyms)
      return img_fail(img,
                      "relocation %zu: symbol index %lu beyond the symbol "
                      "table (%lu symbols)",
                      relno, (unsigned long)idx, (unsigned long)img->nsyms);
    Elf64_Sym s;
    dyn_symbol(img, idx, &s);
    const char *name = dyn_string(img, s.st_name);
    if (s.st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s.st_info) != STT_TLS)
      return img_fail(img,
                      "relocation %zu (%s): symbol '%s' is not a thread-local "
                      "variable of this image (thread-local storage of other "
                      "modules is not supported)",
                      relno, reloc_name(type), name ? name : "?");
    v = s.st_value;
  }
  v += (uint64_t)addend;
  if (v > img->tls_memsz)
    return img_fail(img,
                    "relocation %zu (%s): offset 0x%lx beyond the TLS block "
                    "(0x%lx bytes)",
                    relno, reloc_name(type), (unsigned long)v,
                    (unsigned long)img->tls_memsz);
  *off = v;
  return 0;
}

/* resolve_uncached through IMG->symcache: each symbol is looked up once
 * even when many relocations (and both passes) name it. */
static int resolve(struct emu_image *img, uint64_t idx, size_t relno,
                   uint64_t r_offset, uintptr_t *value, int *ifunc) {
  if (idx < img->nsyms && img->symstate &&
      img->symstate[idx] != SYM_UNRESOLVED) {
    *value = img->symcache[idx];
    *ifunc = img->symstate[idx] == SYM_OWN_IFUNC;
    return 0;
  }
  if (resolve_uncached(img, idx, relno, r_offset, value, ifunc) != 0)
    return -1;
  if (img->symstate) {
    img->symcache[idx] = *value;
    img->symstate[idx] = *ifunc ? SYM_OWN_IFUNC : SYM_RESOLVED;
  }
  return 0;
}

/* Call the ifunc resolver at RESOLVER after checking it is image code. */
static int call_resolver(struct emu_image *img, uintptr_t resolver,
                         size_t relno, uintptr_t *value) {
  if (!img_is_code(img, resolver))
    return img_fail(img,
                    "relocation %zu: ifunc resolver at " "0x%016lx is not in "
                    "the image's code",
                    relno, (unsigned long)resolver);
#ifdef EMU_LOADER_FUZZING
  *value = 0; /* never run fuzzed code */
#else
  *value = (uintptr_t)((void *(*)(void))resolver)();
#endif
  return 0;
}

/* Apply the RELA table at VADDR (SIZE bytes) named WHAT; PASS 0 does all
 * but ifunc relocations, PASS 1 only those. */
static int apply_rela(struct emu_image *img, const char *what, uint64_t vaddr,
                      uint64_t size, int pass) {
  if (size % sizeof(Elf64_Rela) != 0)
    return img_fail(img,
                    "%s size 0x%lx is not a multiple of %zu", what,
                    (unsigned long)size, sizeof(Elf64_Rela));
  if (!img_has(img, vaddr, size))
    return img_fail(img,
                    "%s table [0x%lx, +0x%lx) lies outside the image span "
                    "[0x%lx, 0x%lx)",
                    what, (unsigned long)vaddr, (unsigned long)size,
                    (unsigned long)img->vlo, (unsigned long)img->vhi);
  size_t n = size / sizeof(Elf64_Rela);
  for (size_t i = 0; i < n; i++) {
    Elf64_Rela r;
    memcpy(&r, img_ptr(img, vaddr + i * sizeof r), sizeof r);
    uint32_t type = ELF64_R_TYPE(r.r_info);
    uint64_t idx = ELF64_R_SYM(r.r_info);
    enum emu_reloc_kind k = reloc_kind(type);
    switch (k) {
    case RK_NONE:
      continue;
    case RK_COPY:
      return img_fail(img,
                      "%s relocation %zu at 0x%lx: %s is for executables", what,
                      i, (unsigned long)r.r_offset, reloc_name(type));
    case RK_TLS:
      return img_fail(img,
                      "%s relocation %zu at 0x%lx: %s (initial-exec or "
                      "descriptor thread-local storage) is not supported; "
                      "build with the global-dynamic TLS model",
                      what, i, (unsigned long)r.r_offset, reloc_name(type));
    case RK_UNKNOWN:
      return img_fail(img,
                      "%s relocation %zu at 0x%lx has unsupported type %u "
                      "(%s)",
                      what, i, (unsigned long)r.r_offset, type,
                      reloc_name(type));
    default:
      break;
    }
    if (!img_has(img, r.r_offset, 8))
      return img_fail(img,
                      "%s relocation %zu (%s): offset 0x%lx lies outside the "
                      "image span [0x%lx, 0x%lx)",
                      what, i, reloc_name(type), (unsigned long)r.r_offset,
                      (unsigned long)img->vlo, (unsigned long)img->vhi);
    if (!img_pages_have(img, r.r_offset, 8, PROT_WRITE))
      return img_fail(img,
                      "%s relocation %zu (%s): offset 0x%lx is in a "
                      "read-only segment (text relocations are not "
                      "supported)",
                      what, i, reloc_name(type), (unsigned long)r.r_offset);
    uintptr_t v = 0;
    int ifunc = 0;
    if (k == RK_DTPMOD || k == RK_DTPOFF) {
      if (pass == 1)
        continue;
      uint64_t off = 0;
      if (tls_offset(img, type, idx, k == RK_DTPOFF ? r.r_addend : 0, i,
                     &off) != 0)
        return -1;
      v = k == RK_DTPMOD ? tls_module_id(img->tls) : off;
    } else if (k == RK_IRELATIVE) {
      if (pass == 0)
        continue;
      if (call_resolver(img, img->base + (uintptr_t)r.r_addend, i, &v) != 0)
        return -1;
    } else if (k == RK_RELATIVE) {
      if (pass == 1)
        continue;
      v = img->base + (uintptr_t)r.r_addend;
    } else {
      if (idx != 0 && resolve(img, idx, i, r.r_offset, &v, &ifunc) != 0)
        return -1;
      if (ifunc != pass)
        continue;
      if (ifunc && call_resolver(img, v, i, &v) != 0)
        return -1;
      v += (uintptr_t)r.r_addend;
    }
    memcpy(img_ptr(img, r.r_offset), &v, sizeof v);
  }
  return 0;
}

/* Apply the DT_RELR table (packed relative relocations). */
static int apply_relr(struct emu_image *img) {
  uint64_t vaddr = img->dyn[DT_RELR], size = img->dyn[DT_RELRSZ];
  if (size % 8 != 0 || !img_has(img, vaddr, size))
    return img_fail(img,
                    "DT_RELR table [0x%lx, +0x%lx) is misaligned or lies "
                    "outside the image span",
                    (unsigned long)vaddr, (unsigned long)size);
  uint64_t where = 0;
  for (uint64_t i = 0; i < size / 8; i++) {
    uint64_t e = img_rd64(img, vaddr + i * 8);
    uint64_t targets[63];
    size_t nt = 0;
    if ((e & 1) == 0) {
      where = e;
      targets[nt++] = where;
      where += 8;
    } else {
      for (unsigned b = 0; b < 63; b++)
        if (e & (2ULL << b))
          targets[nt++] = where + 8ULL * b;
      where += 63 * 8;
    }
    for (size_t t = 0; t < nt; t++) {
      uint64_t at = targets[t];
      if (!img_has(img, at, 8) || !img_pages_have(img, at, 8, PROT_WRITE))
        return img_fail(img,
                        "DT_RELR entry %lu: offset 0x%lx outside the image's "
                        "writable span",
                        (unsigned long)i, (unsigned long)at);
      uintptr_t v = img->base + img_rd64(img, at);
      memcpy(img_ptr(img, at), &v, sizeof v);
    }
  }
  return 0;
}

int reloc_apply(struct emu_image *img) {
  if (img->has[DT_REL] || img->has[DT_RELSZ])
    return img_fail(img,
                    "DT_REL relocations (without addend) are not used on %s",
                    reloc_machine_name);
  if (img->has[DT_TEXTREL] ||
      (img->has[DT_FLAGS] && (img->dyn[DT_FLAGS] & DF_TEXTREL)))
    return img_fail(img,
                    "DT_TEXTREL: text relocations are not supported");
  if (img->has[DT_RELAENT] && img->dyn[DT_RELAENT] != sizeof(Elf64_Rela))
    return img_fail(img, "DT_RELAENT %lu, expected %zu",
                    (unsigned long)img->dyn[DT_RELAENT], sizeof(Elf64_Rela));
  if (img->has[DT_JMPREL] && img->has[DT_PLTREL] &&
      img->dyn[DT_PLTREL] != DT_RELA)
    return img_fail(img, "DT_PLTREL %lu is not DT_RELA",
                    (unsigned long)img->dyn[DT_PLTREL]);
  if ((img->has[DT_RELA] || img->has[DT_JMPREL]) && !img->has[DT_SYMTAB])
    return img_fail(img, "relocations without DT_SYMTAB");
  if (img->has[DT_RELR] && apply_relr(img) != 0)
    return -1;
  /* An image that can serialize a parallel region gets the device
   * runtime's stand-ins for forking teams (fresh_root.h); one whose kernels
   * are GPU-style (flang's: they call __kmpc_target_init) gets the device
   * runtime's versions of the libomp calls those kernels make
   * (devicertl.h, devicertl_flang_lookup). */
  for (uint64_t i = 1; img->has[DT_SYMTAB] && i < img->nsyms; i++) {
    Elf64_Sym sym;
    dyn_symbol(img, i, &sym);
    const char *n = sym.st_shndx == SHN_UNDEF ? dyn_string(img, sym.st_name)
                                              : NULL;
    if (n && strcmp(n, "__kmpc_serialized_parallel") == 0)
      img->serializes = 1;
    if (n && strcmp(n, "__kmpc_target_init") == 0)
      img->gpu_style = 1;
    unsigned needs = n ? loader_import_needs(n) : 0;
    if (needs & LOADER_USES_LIBOMP)
      img->uses_libomp = 1; /* libomp's thread state: exec_launch_here */
    if (needs & LOADER_THREAD_BOUND)
      img->sets_icvs = 1; /* would change the thread's state: workers only */
  }
  /* Without the cache (out of memory) every relocation looks up again. */
  if (img->nsyms) {
    img->symcache = calloc(img->nsyms, sizeof *img->symcache);
    img->symstate = calloc(img->nsyms, 1);
    if (!img->symcache || !img->symstate) {
      free(img->symcache);
      free(img->symstate);
      img->symcache = NULL;
      img->symstate = NULL;
    }
  }
  int rc = 0;
  for (int pass = 0; rc == 0 && pass < 2; pass++) {
    if (img->has[DT_RELA] &&
        apply_rela(img, "DT_RELA", img->dyn[DT_RELA],
                   img->has[DT_RELASZ] ? img->dyn[DT_RELASZ] : 0, pass) != 0)
      rc = -1;
    else if (img->has[DT_JMPREL] &&
             apply_rela(img, "DT_JMPREL", img->dyn[DT_JMPREL],
                        img->has[DT_PLTRELSZ] ? img->dyn[DT_PLTRELSZ] : 0,
                        pass) != 0)
      rc = -1;
  }
  free(img->symcache);
  free(img->symstate);
  img->symcache = NULL;
  img->symstate = NULL;
  return rc;
}
