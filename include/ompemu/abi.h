/* ompemu ABI types: the data structures that clang 14's host code, device
 * images and LLVM 14's libomptarget exchange (x86-64 / LP64 layouts), in
 * ompemu's own words.  See docs/abi-clang14.md sections 4-6,
 * docs/offload-wrapper.md and docs/indirect-functions.md. */
#ifndef OMPEMU_ABI_H
#define OMPEMU_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return convention of every __tgt_* and __tgt_rtl_* function. */
#define OFFLOAD_SUCCESS 0
#define OFFLOAD_FAIL (~0)

/* device_id value that selects omp_get_default_device(). */
#define OFFLOAD_DEVICE_DEFAULT (-1)

/* Offload entry flags (__tgt_offload_entry.flags). */
enum ompemu_entry_flags {
  OMP_DECLARE_TARGET_LINK = 0x01, /* <var>_decl_tgt_ref_ptr, size 8 */
  OMP_DECLARE_TARGET_CTOR = 0x02, /* C++ ctor of a declare-target global */
  OMP_DECLARE_TARGET_DTOR = 0x04, /* C++ dtor of a declare-target global */
  OMP_DECLARE_TARGET_FPTR = 0x08  /* declare target indirect function */
};

/* Requires flags (__tgt_register_requires). */
enum ompemu_requires_flags {
  OMP_REQ_UNDEFINED = 0x000,
  OMP_REQ_NONE = 0x001,
  OMP_REQ_REVERSE_OFFLOAD = 0x002,
  OMP_REQ_UNIFIED_ADDRESS = 0x004,
  OMP_REQ_UNIFIED_SHARED_MEMORY = 0x008,
  OMP_REQ_DYNAMIC_ALLOCATORS = 0x010
};

/* Map-type bits of arg_types[i]. */
enum ompemu_map_type {
  OMP_TGT_MAPTYPE_NONE = 0x000,
  OMP_TGT_MAPTYPE_TO = 0x001,
  OMP_TGT_MAPTYPE_FROM = 0x002,
  OMP_TGT_MAPTYPE_ALWAYS = 0x004,
  OMP_TGT_MAPTYPE_DELETE = 0x008,
  OMP_TGT_MAPTYPE_PTR_AND_OBJ = 0x010,
  OMP_TGT_MAPTYPE_TARGET_PARAM = 0x020,
  OMP_TGT_MAPTYPE_RETURN_PARAM = 0x040,
  OMP_TGT_MAPTYPE_PRIVATE = 0x080,
  OMP_TGT_MAPTYPE_LITERAL = 0x100,
  OMP_TGT_MAPTYPE_IMPLICIT = 0x200,
  OMP_TGT_MAPTYPE_CLOSE = 0x400,
  OMP_TGT_MAPTYPE_PRESENT = 0x1000,
  OMP_TGT_MAPTYPE_OMPX_HOLD = 0x2000,
  /* clang 22: BASE is the address of a pointer, BEGIN its pointee; the
   * device copy of the pointer is made to point at the pointee's device
   * copy.  Maps no data (docs/abi-clang22.md section 5.2). */
  OMP_TGT_MAPTYPE_ATTACH = 0x4000
};
#define OMP_TGT_MAPTYPE_NON_CONTIG ((int64_t)0x100000000000LL)
#define OMP_TGT_MAPTYPE_MEMBER_OF ((int64_t)0xffff000000000000ULL)

/* MEMBER_OF(k): k is the 1-based index of the parent entry. */
static inline int64_t ompemu_member_of(int32_t parent_index0) {
  return (int64_t)((uint64_t)(parent_index0 + 1) << 48);
}
/* 0-based parent index of a map type, or -1 when it has no parent. */
static inline int32_t ompemu_parent_index(int64_t type) {
  return (int32_t)(((uint64_t)type & (uint64_t)OMP_TGT_MAPTYPE_MEMBER_OF) >> 48) - 1;
}

/* Allocation kinds of __tgt_rtl_data_alloc. */
enum ompemu_alloc_kind {
  TARGET_ALLOC_DEVICE = 0,
  TARGET_ALLOC_HOST = 1,
  TARGET_ALLOC_SHARED = 2,
  TARGET_ALLOC_DEFAULT = 3
};

/* One offload entry: a kernel, a global, a ctor/dtor or an indirect
 * function.  Host entries live in section omp_offloading_entries. */
typedef struct __tgt_offload_entry {
  void *addr;       /* host or device address of the symbol */
  char *name;       /* symbol name, the key that pairs host and device */
  size_t size;      /* bytes of a global; 0 for functions */
  int32_t flags;    /* enum ompemu_entry_flags */
  int32_t reserved; /* 0 */
} __tgt_offload_entry;

/* One embedded device image and the host entries it serves. */
typedef struct __tgt_device_image {
  void *ImageStart;
  void *ImageEnd;
  __tgt_offload_entry *EntriesBegin;
  __tgt_offload_entry *EntriesEnd;
} __tgt_device_image;

/* What a host binary (executable or DSO) registers at start-up. */
typedef struct __tgt_bin_desc {
  int32_t NumDeviceImages;
  __tgt_device_image *DeviceImages;
  __tgt_offload_entry *HostEntriesBegin;
  __tgt_offload_entry *HostEntriesEnd;
} __tgt_bin_desc;

/* The table a plugin returns from load_binary. */
typedef struct __tgt_target_table {
  __tgt_offload_entry *EntriesBegin;
  __tgt_offload_entry *EntriesEnd;
} __tgt_target_table;

/* Per-queue state handed to async plugin calls; Queue == NULL means
 * nothing is pending. */
typedef struct __tgt_async_info {
  void *Queue;
} __tgt_async_info;

/* Interop device info (LLVM 14 __tgt_rtl_init_device_info). */
typedef struct __tgt_device_info {
  void *Context;
  void *Device;
} __tgt_device_info;

/* Per-image information registered by __tgt_register_image_info before
 * __tgt_register_lib (docs/offload-wrapper.md). */
typedef struct __tgt_image_info {
  int32_t version;
  int32_t image_number;  /* 0-based index in the descriptor */
  int32_t number_images; /* images in the descriptor */
  char *offload_arch;    /* target id, e.g. "gfx906", "sm_70", "x86-64" */
  char *compile_opts;    /* reserved */
} __tgt_image_info;

/* One row of the declare-target-indirect table, sorted by host_ptr
 * (docs/indirect-functions.md). */
typedef struct __omp_offloading_fptr_map_ty {
  int64_t host_ptr; /* key */
  int64_t tgt_ptr;  /* value */
} __omp_offloading_fptr_map_ty;

/* Source location passed by clang (psource ";file;func;line;col;;"). */
typedef struct ident_t {
  int32_t reserved_1;
  int32_t flags;
  int32_t reserved_2;
  int32_t reserved_3;
  const char *psource;
} ident_t;

/* arg_names[i]: a pointer to a ";expr;file;line;col;;" string. */
typedef void *map_var_info_t;

/* One dimension of a non-contiguous target update (NON_CONTIG). */
typedef struct __tgt_descriptor_dim {
  int64_t offset; /* in elements */
  int64_t count;  /* elements */
  int64_t stride; /* bytes */
} __tgt_descriptor_dim;

#if defined(__x86_64__) || defined(__aarch64__) || defined(__powerpc64__)
_Static_assert(sizeof(__tgt_offload_entry) == 32, "entry size");
_Static_assert(offsetof(__tgt_offload_entry, name) == 8, "entry.name");
_Static_assert(offsetof(__tgt_offload_entry, size) == 16, "entry.size");
_Static_assert(offsetof(__tgt_offload_entry, flags) == 24, "entry.flags");
_Static_assert(offsetof(__tgt_offload_entry, reserved) == 28, "entry.reserved");
_Static_assert(sizeof(__tgt_device_image) == 32, "image size");
_Static_assert(offsetof(__tgt_device_image, EntriesBegin) == 16, "image.EntriesBegin");
_Static_assert(sizeof(__tgt_bin_desc) == 32, "desc size");
_Static_assert(offsetof(__tgt_bin_desc, DeviceImages) == 8, "desc.DeviceImages");
_Static_assert(offsetof(__tgt_bin_desc, HostEntriesEnd) == 24, "desc.HostEntriesEnd");
_Static_assert(sizeof(__tgt_target_table) == 16, "table size");
_Static_assert(sizeof(__tgt_async_info) == 8, "async info size");
_Static_assert(sizeof(__tgt_device_info) == 16, "device info size");
_Static_assert(sizeof(__tgt_image_info) == 32, "image info size");
_Static_assert(offsetof(__tgt_image_info, offload_arch) == 16, "image_info.offload_arch");
_Static_assert(sizeof(__omp_offloading_fptr_map_ty) == 16, "fptr map entry");
_Static_assert(sizeof(ident_t) == 24, "ident_t size");
_Static_assert(offsetof(ident_t, psource) == 16, "ident_t.psource");
_Static_assert(sizeof(__tgt_descriptor_dim) == 24, "descriptor_dim");
#endif

#ifdef __cplusplus
}
#endif
#endif
