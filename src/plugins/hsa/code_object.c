/* Code objects: which images the plugin accepts (ELF, EM_AMDGPU, a mach
 * some agent has), loading one per agent into a frozen HSA executable, the
 * device entries table built by name in host entry order, and the
 * function-pointer table (docs/indirect-functions.md) written into each
 * executable's __omp_offloading_fptr_map_p / __omp_offloading_fptr_map_size.
 */
#include "config.h"
#include "hsa_plugin.h"
#include "trace.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ompemu/plugin.h>

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif
#define EF_AMDGPU_MACH_MASK 0xffu

/* Check IMG's ELF header; on success *MACH is its EF_AMDGPU_MACH.  On
 * failure WHY (SIZE bytes) says what is wrong. */
static int image_mach(const __tgt_device_image *img, uint32_t *mach, char *why,
                      size_t size) {
  const char *b = img ? img->ImageStart : NULL;
  size_t len = b && img->ImageEnd > img->ImageStart
                   ? (size_t)((const char *)img->ImageEnd - b) : 0;
  Elf64_Ehdr eh;
  if (len < sizeof eh) {
    snprintf(why, size, "%zu bytes, too small for an ELF header", len);
    return -1;
  }
  memcpy(&eh, b, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    snprintf(why, size, "not an ELF file");
    return -1;
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
    snprintf(why, size, "not a 64-bit ELF file");
    return -1;
  }
  if (eh.e_machine != EM_AMDGPU) {
    snprintf(why, size, "e_machine %u is not EM_AMDGPU (%u)",
             (unsigned)eh.e_machine, (unsigned)EM_AMDGPU);
    return -1;
  }
  *mach = eh.e_flags & EF_AMDGPU_MACH_MASK;
  return 0;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_is_valid_binary(__tgt_device_image *img) {
  if (hsa_rt_init() != 0 || hsa_st.ndev == 0)
    return 0;
  char why[160];
  uint32_t mach;
  if (image_mach(img, &mach, why, sizeof why) != 0) {
    ompemu_trace(1, HSA_WHO, "image " OMPEMU_PTR " refused: %s",
                 OMPEMU_P(img ? img->ImageStart : NULL), why);
    return 0;
  }
  for (int i = 0; i < hsa_st.ndev; i++)
    if (hsa_st.dev[i].mach == mach && mach != 0) {
      ompemu_trace(1, HSA_WHO, "image " OMPEMU_PTR " accepted: mach 0x%02x "
                   "(%s) runs on device %d", OMPEMU_P(img->ImageStart), mach,
                   hsa_mach_name(mach), i);
      return 1;
    }
  char agents[256] = "";
  for (int i = 0; i < hsa_st.ndev; i++) {
    size_t l = strlen(agents);
    snprintf(agents + l, sizeof agents - l, "%s%s", i ? ", " : "",
             hsa_st.dev[i].name);
  }
  ompemu_trace(1, HSA_WHO, "image " OMPEMU_PTR " refused: code object for "
               "mach 0x%02x (%s), agents are %s", OMPEMU_P(img->ImageStart),
               mach, hsa_mach_name(mach), agents);
  return 0;
}

/* Look NAME up in executable EXEC for D's agent; 0 and *SYM when found. */
static int find_symbol(struct hsa_device *d, hsa_executable_t exec,
                       const char *name, hsa_executable_symbol_t *sym) {
  return H.hsa_executable_get_symbol_by_name(exec, name, &d->agent, sym) ==
                 HSA_STATUS_SUCCESS ? 0 : -1;
}

/* Address of variable NAME in EXEC; 0 when found. */
static int variable_address(struct hsa_device *d, hsa_executable_t exec,
                            const char *name, uint64_t *addr) {
  hsa_executable_symbol_t sym;
  if (find_symbol(d, exec, name, &sym) != 0)
    return -1;
  hsa_status_t st = H.hsa_executable_symbol_get_info(
      sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS, addr);
  if (st != HSA_STATUS_SUCCESS) {
    hsa_fail("hsa_executable_symbol_get_info(VARIABLE_ADDRESS)", st,
             "symbol %s on hsa device %d", name, d->id);
    return -1;
  }
  return 0;
}

/* Fill K from kernel NAME (the "<NAME>.kd" symbol) of EXEC. */
static int kernel_info(struct hsa_device *d, hsa_executable_t exec,
                       const __tgt_device_image *img, const char *name,
                       struct hsa_kernel *k) {
  char kd[512];
  if (snprintf(kd, sizeof kd, "%s.kd", name) >= (int)sizeof kd) {
    ompemu_error(HSA_WHO, "kernel name %s too long", name);
    return -1;
  }
  hsa_executable_symbol_t sym;
  if (find_symbol(d, exec, kd, &sym) != 0) {
    ompemu_error(HSA_WHO, "hsa device %d (%s): kernel %s of the host entries "
                 "table not found (no symbol %s in the code object)", d->id,
                 d->name, name, kd);
    return -1;
  }
  static const struct {
    hsa_executable_symbol_info_t info;
    const char *what;
    size_t off, size;
  } q[] = {
      {HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, "KERNEL_OBJECT",
       offsetof(struct hsa_kernel, object), 8},
      {HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
       "KERNEL_KERNARG_SEGMENT_SIZE", offsetof(struct hsa_kernel, kernarg_size),
       4},
      {HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
       "KERNEL_GROUP_SEGMENT_SIZE", offsetof(struct hsa_kernel, group_size), 4},
      {HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
       "KERNEL_PRIVATE_SEGMENT_SIZE", offsetof(struct hsa_kernel, private_size),
       4},
  };
  for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
    hsa_status_t st =
        H.hsa_executable_symbol_get_info(sym, q[i].info, (char *)k + q[i].off);
    if (st != HSA_STATUS_SUCCESS) {
      hsa_fail("hsa_executable_symbol_get_info", st, "%s of %s on hsa device "
               "%d", q[i].what, kd, d->id);
      return -1;
    }
  }
  k->dev = d;
  k->name = name;
  char var[512];
  snprintf(var, sizeof var, "%s_exec_mode", name);
  if (hsa_elf_symbol_value(img, var, &k->exec_mode, 1) != 0)
    k->exec_mode = 0;
  snprintf(var, sizeof var, "%s_wg_size", name);
  if (hsa_elf_symbol_value(img, var, &k->wg_size, 2) != 0)
    k->wg_size = 0;
  ompemu_trace(2, HSA_WHO, "device %d: kernel %s object 0x%016lx kernarg %u "
               "group %u private %u exec_mode %u wg_size %u", d->id, name,
               (unsigned long)k->object, k->kernarg_size, k->group_size,
               k->private_size, k->exec_mode, k->wg_size);
  return 0;
}

/* Release image IM's executable, reader and tables. */
static void image_free(struct hsa_image *im) {
  hsa_status_t st;
  if (im->exec.handle &&
      (st = H.hsa_executable_destroy(im->exec)) != HSA_STATUS_SUCCESS)
    hsa_fail("hsa_executable_destroy", st, "executable 0x%016lx",
             (unsigned long)im->exec.handle);
  if (im->reader.handle &&
      (st = H.hsa_code_object_reader_destroy(im->reader)) != HSA_STATUS_SUCCESS)
    hsa_fail("hsa_code_object_reader_destroy", st, "reader 0x%016lx",
             (unsigned long)im->reader.handle);
  free(im->entries);
  free(im->kernels);
  free(im);
}

void hsa_images_unload(struct hsa_device *d) {
  while (d->images) {
    struct hsa_image *im = d->images;
    d->images = im->next;
    image_free(im);
  }
}

/* Build the device entries of IM, one per host entry, in host order. */
static int build_entries(struct hsa_device *d, struct hsa_image *im,
                         const __tgt_device_image *img) {
  size_t n = (size_t)(img->EntriesEnd - img->EntriesBegin);
  im->entries = calloc(n ? n : 1, sizeof *im->entries);
  im->kernels = calloc(n ? n : 1, sizeof *im->kernels);
  if (!im->entries || !im->kernels)
    return -1;
  for (size_t i = 0; i < n; i++) {
    const __tgt_offload_entry *h = &img->EntriesBegin[i];
    __tgt_offload_entry *e = &im->entries[i];
    *e = *h;
    if (h->size == 0 && !(h->flags & (OMP_DECLARE_TARGET_FPTR |
                                      OMP_DECLARE_TARGET_LINK))) {
      if (kernel_info(d, im->exec, img, h->name, &im->kernels[i]) != 0)
        return -1;
      e->addr = &im->kernels[i];
      continue;
    }
    uint64_t addr;
    if (variable_address(d, im->exec, h->name, &addr) != 0) {
      ompemu_error(HSA_WHO, "hsa device %d (%s): %s %s (host " OMPEMU_PTR
                   ", %zu bytes) not found in the code object", d->id,
                   d->name, h->flags & OMP_DECLARE_TARGET_FPTR
                       ? "indirect function" : "global",
                   h->name, OMPEMU_P(h->addr), h->size);
      return -1;
    }
    e->addr = (void *)(uintptr_t)addr;
    ompemu_trace(2, HSA_WHO, "device %d: global %s host " OMPEMU_PTR
                 " -> device " OMPEMU_PTR, d->id, h->name, OMPEMU_P(h->addr),
                 OMPEMU_P(e->addr));
  }
  im->table.EntriesBegin = im->entries;
  im->table.EntriesEnd = im->entries + n;
  return 0;
}

/* Reader, executable, load for D's agent, freeze. */
static int load_code_object(struct hsa_device *d, struct hsa_image *im,
                            const __tgt_device_image *img) {
  size_t len = (size_t)((const char *)img->ImageEnd -
                        (const char *)img->ImageStart);
  hsa_status_t st =
      H.hsa_code_object_reader_create_from_memory(img->ImageStart, len,
                                                  &im->reader);
  if (st != HSA_STATUS_SUCCESS) {
    im->reader.handle = 0;
    hsa_fail("hsa_code_object_reader_create_from_memory", st, "image "
             OMPEMU_PTR ", %zu bytes", OMPEMU_P(img->ImageStart), len);
    return -1;
  }
  st = H.hsa_executable_create_alt(HSA_PROFILE_FULL,
                                   HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, "",
                                   &im->exec);
  if (st != HSA_STATUS_SUCCESS) {
    im->exec.handle = 0;
    hsa_fail("hsa_executable_create_alt", st, "image " OMPEMU_PTR,
             OMPEMU_P(img->ImageStart));
    return -1;
  }
  st = H.hsa_executable_load_agent_code_object(im->exec, d->agent, im->reader,
                                                "", NULL);
  if (st != HSA_STATUS_SUCCESS) {
    hsa_fail("hsa_executable_load_agent_code_object", st, "image " OMPEMU_PTR
             " on hsa device %d (%s)", OMPEMU_P(img->ImageStart), d->id,
             d->name);
    return -1;
  }
  st = H.hsa_executable_freeze(im->exec, "");
  if (st != HSA_STATUS_SUCCESS) {
    hsa_fail("hsa_executable_freeze", st, "image " OMPEMU_PTR " on hsa "
             "device %d", OMPEMU_P(img->ImageStart), d->id);
    return -1;
  }
  return 0;
}

OMPEMU_HSA_EXPORT __tgt_target_table *
__tgt_rtl_load_binary(int32_t id, __tgt_device_image *img) {
  struct hsa_device *d = hsa_dev_ready(id, "load_binary");
  if (!d || !img)
    return NULL;
  char why[160];
  uint32_t mach;
  if (image_mach(img, &mach, why, sizeof why) != 0) {
    ompemu_error(HSA_WHO, "load_binary: image " OMPEMU_PTR " on hsa device %d "
                 "refused: %s", OMPEMU_P(img->ImageStart), id, why);
    return NULL;
  }
  if (mach != d->mach) {
    ompemu_error(HSA_WHO, "load_binary: image " OMPEMU_PTR " is for mach "
                 "0x%02x (%s), hsa device %d is %s", OMPEMU_P(img->ImageStart),
                 mach, hsa_mach_name(mach), id, d->name);
    return NULL;
  }
  struct hsa_image *im = calloc(1, sizeof *im);
  if (!im)
    return NULL;
  im->host_image = img;
  /* Loading takes long: no lock a launch needs is held meanwhile. */
  if (load_code_object(d, im, img) != 0 || build_entries(d, im, img) != 0) {
    image_free(im);
    return NULL;
  }
  /* An image loaded after the table was set gets it too; fptr_lock orders
   * this write against a concurrent set_function_ptr_map. */
  pthread_mutex_lock(&d->fptr_lock);
  int frc = d->fptr_set ? hsa_fptr_apply(d, im) : 0;
  if (frc == 0) {
    pthread_mutex_lock(&d->lock);
    im->next = d->images;
    d->images = im;
    pthread_mutex_unlock(&d->lock);
  }
  pthread_mutex_unlock(&d->fptr_lock);
  if (frc != 0) {
    image_free(im);
    return NULL;
  }
  ompemu_trace(1, HSA_WHO, "device %d: image " OMPEMU_PTR " loaded, "
               "executable 0x%016lx, %ld entries", id,
               OMPEMU_P(img->ImageStart), (unsigned long)im->exec.handle,
               (long)(im->table.EntriesEnd - im->table.EntriesBegin));
  return &im->table;
}

/* Is K a kernel of an image loaded on D?  (Entry pointers come from the
 * runtime; a stale or foreign one must not be dereferenced.) */
int hsa_kernel_known(struct hsa_device *d, const struct hsa_kernel *k) {
  int found = 0;
  pthread_mutex_lock(&d->lock);
  for (struct hsa_image *im = d->images; im && !found; im = im->next) {
    size_t n = (size_t)(im->table.EntriesEnd - im->table.EntriesBegin);
    found = k >= im->kernels && k < im->kernels + n &&
            ((uintptr_t)k - (uintptr_t)im->kernels) % sizeof *k == 0 &&
            k->object != 0;
  }
  pthread_mutex_unlock(&d->lock);
  return found;
}

/* Write D's fptr table address and size into IM's two device globals when
 * the code object defines them (caller holds D->fptr_lock). */
int hsa_fptr_apply(struct hsa_device *d, struct hsa_image *im) {
  uint64_t p_addr, s_addr;
  if (variable_address(d, im->exec, "__omp_offloading_fptr_map_p", &p_addr) !=
      0) {
    ompemu_trace(2, HSA_WHO, "device %d: executable 0x%016lx has no "
                 "__omp_offloading_fptr_map_p", d->id,
                 (unsigned long)im->exec.handle);
    return 0;
  }
  if (variable_address(d, im->exec, "__omp_offloading_fptr_map_size",
                       &s_addr) != 0) {
    ompemu_error(HSA_WHO, "device %d: executable 0x%016lx defines "
                 "__omp_offloading_fptr_map_p but not "
                 "__omp_offloading_fptr_map_size", d->id,
                 (unsigned long)im->exec.handle);
    return -1;
  }
  uint64_t vals[2] = {(uint64_t)(uintptr_t)d->fptr_table, d->fptr_size};
  struct hsa_queue_ops q = {.dev = d};
  int rc = hsa_copy_h2d(d, (void *)(uintptr_t)p_addr, &vals[0], 8, &q);
  if (rc == 0)
    rc = hsa_copy_h2d(d, (void *)(uintptr_t)s_addr, &vals[1], 8, &q);
  if (hsa_ops_finish(&q) != 0)
    rc = -1;
  if (rc == 0)
    ompemu_trace(1, HSA_WHO, "device %d: fptr table " OMPEMU_PTR " (%lu "
                 "entries) written to __omp_offloading_fptr_map_p at "
                 OMPEMU_PTR, d->id, OMPEMU_P(d->fptr_table),
                 (unsigned long)d->fptr_size, OMPEMU_P(p_addr));
  return rc;
}

OMPEMU_HSA_EXPORT int32_t __tgt_rtl_set_function_ptr_map(
    int32_t id, uint64_t size, __omp_offloading_fptr_map_ty *table) {
  struct hsa_device *d = hsa_dev_ready(id, "set_function_ptr_map");
  if (!d || (size && !table))
    return OFFLOAD_FAIL;
  size_t bytes = (size_t)size * sizeof *table;
  void *dev_table = NULL;
  if (size) {
    dev_table = hsa_mem_alloc(d, &d->dev_mem, bytes, "fptr table");
    if (!dev_table)
      return OFFLOAD_FAIL;
    struct hsa_queue_ops q = {.dev = d};
    int rc = hsa_copy_h2d(d, dev_table, table, bytes, &q);
    if (hsa_ops_finish(&q) != 0 || rc != 0) {
      hsa_mem_free(dev_table, "fptr table");
      return OFFLOAD_FAIL;
    }
  }
  /* Images are only ever added at the head of the list and removed only
   * when the device goes, so the list from HEAD can be walked unlocked;
   * fptr_lock orders these writes against a concurrent load_binary. */
  pthread_mutex_lock(&d->fptr_lock);
  pthread_mutex_lock(&d->lock);
  void *old = d->fptr_table;
  d->fptr_table = dev_table;
  d->fptr_size = size;
  d->fptr_set = 1;
  struct hsa_image *head = d->images;
  pthread_mutex_unlock(&d->lock);
  int rc = 0;
  for (struct hsa_image *im = head; im; im = im->next)
    if (hsa_fptr_apply(d, im) != 0)
      rc = -1;
  pthread_mutex_unlock(&d->fptr_lock);
  if (old && hsa_mem_free(old, "previous fptr table") != 0)
    rc = -1;
  return rc == 0 ? OFFLOAD_SUCCESS : OFFLOAD_FAIL;
}
