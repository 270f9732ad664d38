/* Offload entry tables in both layouts, read into one representation:
 *   32 bytes  __tgt_offload_entry {addr, name, size, int32 flags,
 *             int32 reserved}, section omp_offloading_entries
 *             (clang 14, 16, 19; clang 19 puts requires bits in reserved)
 *   56 bytes  {u64 Reserved=0, u16 Version=1, u16 Kind=1 (OpenMP),
 *             u32 Flags, Address, SymbolName, u64 Size, u64 Data,
 *             AuxAddr}, section llvm_offload_entries (clang 22, flang 22)
 * (docs/abi-clang16-19.md 4, docs/abi-clang22.md 3).  A descriptor does
 * not say which layout its tables use; rt_entries_detect decides from the
 * bytes.  Pure functions: no locks, no reporting (messages go to the
 * caller's buffer), only rt_entries_read allocates. */
#ifndef OMPEMU_RT_ENTRY_TABLE_H
#define OMPEMU_RT_ENTRY_TABLE_H

#include "rt.h"

#include <stddef.h>
#include <stdint.h>

#define RT_ENTRY_SIZE_OMP 32
#define RT_ENTRY_SIZE_LLVM 56

/* Flag bits, the same in both layouts. */
#define RT_ENTRY_FLAG_LINK 0x01     /* <var>_decl_tgt_ref_ptr */
#define RT_ENTRY_FLAG_CTOR 0x02     /* clang 16 device ctor to call */
#define RT_ENTRY_FLAG_DTOR 0x04     /* clang 16 device dtor to call */
#define RT_ENTRY_FLAG_INDIRECT 0x08 /* declare target indirect function */
#define RT_ENTRY_FLAG_REQUIRES 0x10 /* requires bits in data, no symbol */
#define RT_ENTRY_FLAG_VTABLE 0x20   /* indirect C++ vtable (clang 22) */

enum rt_entry_format {
  RT_ENTRIES_EMPTY = 0, /* no entries: either layout */
  RT_ENTRIES_OMP32,     /* 32-byte __tgt_offload_entry */
  RT_ENTRIES_LLVM56     /* 56-byte llvm_offload_entries */
};

/* What an entry stands for, from its flags (and size). */
enum rt_entry_kind {
  RT_ENTRY_KERNEL,   /* size 0, no flags: a kernel (host: region id) */
  RT_ENTRY_GLOBAL,   /* a declare target (to/enter) variable */
  RT_ENTRY_LINK,     /* a declare target link reference pointer */
  RT_ENTRY_CTOR,
  RT_ENTRY_DTOR,
  RT_ENTRY_INDIRECT, /* an indirect function (device: a pointer variable) */
  RT_ENTRY_VTABLE,   /* a vtable (host name ..._ZTV<cls>_l<N>addr) */
  RT_ENTRY_REQUIRES, /* host only: requires bits in data, no symbol */
  RT_ENTRY_OTHER     /* a 56-byte entry of another offload kind (CUDA..) */
};

/* One entry, whichever layout it came from. */
struct rt_entry {
  void *addr;          /* host or device address; NULL for requires */
  const char *name;    /* the pairing key ("" or ".requires" for requires) */
  uint64_t size;       /* bytes of a variable; 0 for kernels */
  uint32_t flags;      /* RT_ENTRY_FLAG_* */
  uint64_t data;       /* requires bits (56: Data; 32: reserved), else 0 */
  enum rt_entry_kind kind;
  uint16_t version;    /* 56-byte: Version (1); 32-byte: 0 */
  uint16_t offload_kind; /* 56-byte: Kind (1 = OpenMP); 32-byte: 1 */
  void *aux_addr;      /* 56-byte: AuxAddr (NULL so far); 32-byte: NULL */
  const void *raw;     /* the entry in its table */
};

/* Decide the layout of the table [BEGIN, END): empty; 56-byte when the
 * size is a multiple of 56 and EVERY entry has Reserved 0 and Version 1
 * (bytes 8..15 of a 32-byte entry are a name pointer, which never reads
 * 01 00 01 00 ...); else 32-byte when the size is a multiple of 32.
 * Returns 0 with *FMT and *COUNT set; -1 with the reason in WHY (bad
 * bounds, or a size that fits neither layout).  Reads only the table. */
RT_HIDDEN int rt_entries_detect(const void *begin, const void *end,
                                enum rt_entry_format *fmt, size_t *count,
                                char *why, size_t whylen);

/* Entry I of a table of layout FMT starting at BEGIN (I < the count
 * rt_entries_detect gave) into *OUT. */
RT_HIDDEN void rt_entry_get(const void *begin, enum rt_entry_format fmt,
                            size_t i, struct rt_entry *out);

/* The whole table [BEGIN, END) as a new array (free() it) of *N entries;
 * *OUT is NULL when the table is empty.  *FMT (optional) receives the
 * layout.  0, or -1 with the reason in WHY (rt_entries_detect's, or out
 * of memory). */
RT_HIDDEN int rt_entries_read(const void *begin, const void *end,
                              struct rt_entry **out, size_t *n,
                              enum rt_entry_format *fmt, char *why,
                              size_t whylen);

/* The table [BEGIN, END), whatever its layout, as a new array (free()
 * it) of *N 32-byte __tgt_offload_entry, the layout the rest of the
 * runtime walks: addr, name, size and flags as read; reserved = the
 * requires bits (data) of a requires entry, else 0.  Entries of another
 * offload kind are left out.  *OUT is NULL when nothing is left.  0, or -1
 * with the reason in WHY. */
RT_HIDDEN int rt_entries_to_omp32(const void *begin, const void *end,
                                  __tgt_offload_entry **out, size_t *n,
                                  char *why, size_t whylen);

/* The kind an entry with FLAGS and SIZE stands for (OpenMP entries). */
RT_HIDDEN enum rt_entry_kind rt_entry_classify(uint32_t flags, uint64_t size);

/* "kernel", "global", "link", "ctor", "dtor", "indirect", "vtable",
 * "requires", "other". */
RT_HIDDEN const char *rt_entry_kind_name(enum rt_entry_kind kind);
/* "32-byte omp_offloading_entries" / "56-byte llvm_offload_entries" /
 * "empty". */
RT_HIDDEN const char *rt_entry_format_name(enum rt_entry_format fmt);

/* Entries that name a device symbol to look up by name: kernels, globals,
 * link reference pointers, indirect functions, vtables, ctors and dtors.
 * Not requires entries (no symbol) nor other offload kinds. */
static inline int rt_entry_has_symbol(const struct rt_entry *e) {
  return e->kind != RT_ENTRY_REQUIRES && e->kind != RT_ENTRY_OTHER;
}

#endif
