/* Offload entry tables, 32-byte and 56-byte layouts, read into struct
 * rt_entry (see entry_table.h for the layouts and the detection rule). */
#include "entry_table.h"
#include "readbytes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest table accepted: more entries than this is a corrupt bound. */
#define MAX_ENTRIES (1u << 24)

/* Do all COUNT 56-byte entries at B carry Reserved 0 and Version 1?
 * *BAD receives the first that does not. */
static int all_llvm56(const unsigned char *b, size_t count, size_t *bad) {
  for (size_t i = 0; i < count; i++) {
    const unsigned char *e = b + i * RT_ENTRY_SIZE_LLVM;
    if (rd64(e) != 0 || rd16(e + 8) != 1) {
      *bad = i;
      return 0;
    }
  }
  return 1;
}

int rt_entries_detect(const void *begin, const void *end,
                      enum rt_entry_format *fmt, size_t *count, char *why,
                      size_t whylen) {
  *fmt = RT_ENTRIES_EMPTY;
  *count = 0;
  if (begin == end)
    return 0;
  if (!begin || !end || (const char *)end < (const char *)begin)
    return fail(why, whylen, "entry table bounds %p..%p are invalid", begin,
                end);
  size_t bytes = (size_t)((const char *)end - (const char *)begin);
  size_t bad = 0;
  if (bytes / RT_ENTRY_SIZE_OMP > MAX_ENTRIES)
    return fail(why, whylen,
                "entry table at %p claims %zu bytes, more than %u entries",
                begin, bytes, MAX_ENTRIES);
  if (bytes % RT_ENTRY_SIZE_LLVM == 0 &&
      all_llvm56(begin, bytes / RT_ENTRY_SIZE_LLVM, &bad)) {
    *fmt = RT_ENTRIES_LLVM56;
    *count = bytes / RT_ENTRY_SIZE_LLVM;
    return 0;
  }
  if (bytes % RT_ENTRY_SIZE_OMP == 0) {
    *fmt = RT_ENTRIES_OMP32;
    *count = bytes / RT_ENTRY_SIZE_OMP;
    return 0;
  }
  if (bytes % RT_ENTRY_SIZE_LLVM == 0) {
    const unsigned char *e =
        (const unsigned char *)begin + bad * RT_ENTRY_SIZE_LLVM;
    return fail(why, whylen,
                "entry table at %p is %zu bytes, a multiple of 56 but not "
                "of 32, and its entry %zu has Reserved 0x%lx, Version %u "
                "(a 56-byte entry has 0 and 1)",
                begin, bytes, bad, (unsigned long)rd64(e), rd16(e + 8));
  }
  return fail(why, whylen,
              "entry table at %p is %zu bytes: not a whole number of 32-byte "
              "(__tgt_offload_entry) or 56-byte (llvm_offload_entries) "
              "entries",
              begin, bytes);
}

enum rt_entry_kind rt_entry_classify(uint32_t flags, uint64_t size) {
  if (flags & RT_ENTRY_FLAG_REQUIRES)
    return RT_ENTRY_REQUIRES;
  if (flags & RT_ENTRY_FLAG_VTABLE)
    return RT_ENTRY_VTABLE;
  if (flags & RT_ENTRY_FLAG_CTOR)
    return RT_ENTRY_CTOR;
  if (flags & RT_ENTRY_FLAG_DTOR)
    return RT_ENTRY_DTOR;
  if (flags & RT_ENTRY_FLAG_LINK)
    return RT_ENTRY_LINK;
  if (flags & RT_ENTRY_FLAG_INDIRECT)
    return RT_ENTRY_INDIRECT;
  return size == 0 ? RT_ENTRY_KERNEL : RT_ENTRY_GLOBAL;
}

void rt_entry_get(const void *begin, enum rt_entry_format fmt, size_t i,
                  struct rt_entry *out) {
  memset(out, 0, sizeof *out);
  const unsigned char *b = begin;
  if (fmt == RT_ENTRIES_LLVM56) {
    const unsigned char *e = b + i * RT_ENTRY_SIZE_LLVM;
    out->raw = e;
    out->version = rd16(e + 8);
    out->offload_kind = rd16(e + 10);
    out->flags = rd32(e + 12);
    out->addr = rdptr(e + 16);
    out->name = rdptr(e + 24);
    out->size = rd64(e + 32);
    out->data = rd64(e + 40);
    out->aux_addr = rdptr(e + 48);
    out->kind = out->offload_kind == 1
                    ? rt_entry_classify(out->flags, out->size)
                    : RT_ENTRY_OTHER;
    return;
  }
  const unsigned char *e = b + i * RT_ENTRY_SIZE_OMP;
  out->raw = e;
  out->addr = rdptr(e);
  out->name = rdptr(e + 8);
  out->size = rd64(e + 16);
  out->flags = rd32(e + 24);
  out->offload_kind = 1;
  out->kind = rt_entry_classify(out->flags, out->size);
  /* clang 19 moved the requires bits into the reserved word. */
  if (out->flags & RT_ENTRY_FLAG_REQUIRES)
    out->data = rd32(e + 28);
}

int rt_entries_read(const void *begin, const void *end, struct rt_entry **out,
                    size_t *n, enum rt_entry_format *fmt, char *why,
                    size_t whylen) {
  enum rt_entry_format f;
  size_t count;
  *out = NULL;
  *n = 0;
  if (rt_entries_detect(begin, end, &f, &count, why, whylen) != 0)
    return -1;
  if (fmt)
    *fmt = f;
  if (count == 0)
    return 0;
  struct rt_entry *e = calloc(count, sizeof *e);
  if (!e)
    return fail(why, whylen, "out of memory reading %zu entries", count);
  for (size_t i = 0; i < count; i++)
    rt_entry_get(begin, f, i, &e[i]);
  *out = e;
  *n = count;
  return 0;
}

int rt_entries_to_omp32(const void *begin, const void *end,
                        __tgt_offload_entry **out, size_t *n, char *why,
                        size_t whylen) {
  enum rt_entry_format f;
  size_t count;
  *out = NULL;
  *n = 0;
  if (rt_entries_detect(begin, end, &f, &count, why, whylen) != 0)
    return -1;
  if (count == 0)
    return 0;
  __tgt_offload_entry *t = calloc(count, sizeof *t);
  if (!t)
    return fail(why, whylen, "out of memory copying %zu entries", count);
  size_t k = 0;
  for (size_t i = 0; i < count; i++) {
    struct rt_entry e;
    rt_entry_get(begin, f, i, &e);
    if (e.kind == RT_ENTRY_OTHER)
      continue;
    t[k].addr = e.addr;
    t[k].name = (char *)e.name;
    t[k].size = (size_t)e.size;
    t[k].flags = (int32_t)e.flags;
    t[k].reserved = e.kind == RT_ENTRY_REQUIRES ? (int32_t)e.data : 0;
    k++;
  }
  if (k == 0) {
    free(t);
    return 0;
  }
  *out = t;
  *n = k;
  return 0;
}

const char *rt_entry_kind_name(enum rt_entry_kind kind) {
  switch (kind) {
  case RT_ENTRY_KERNEL: return "kernel";
  case RT_ENTRY_GLOBAL: return "global";
  case RT_ENTRY_LINK: return "link";
  case RT_ENTRY_CTOR: return "ctor";
  case RT_ENTRY_DTOR: return "dtor";
  case RT_ENTRY_INDIRECT: return "indirect";
  case RT_ENTRY_VTABLE: return "vtable";
  case RT_ENTRY_REQUIRES: return "requires";
  case RT_ENTRY_OTHER: return "other";
  }
  return "other";
}

const char *rt_entry_format_name(enum rt_entry_format fmt) {
  switch (fmt) {
  case RT_ENTRIES_OMP32: return "32-byte omp_offloading_entries";
  case RT_ENTRIES_LLVM56: return "56-byte llvm_offload_entries";
  case RT_ENTRIES_EMPTY: break;
  }
  return "empty";
}
